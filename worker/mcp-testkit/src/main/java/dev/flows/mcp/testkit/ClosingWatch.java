package dev.flows.mcp.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay in front of a test server that counts the connections the client closed
 * while the server had not closed them yet: how a test sees a client give up a response stream.
 */
final class ClosingWatch implements AutoCloseable {
  private final ServerSocket listener;
  private final int target;
  private final AtomicInteger clientClosed = new AtomicInteger();

  ClosingWatch(int target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("closing-watch").start(this::accept);
  }

  int port() {
    return listener.getLocalPort();
  }

  int clientClosed() {
    return clientClosed.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        Thread.ofVirtual().start(() -> pump(client, server, true));
        Thread.ofVirtual().start(() -> pump(server, client, false));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromClient) {
    byte[] buf = new byte[8192];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
      if (fromClient && !to.isClosed()) {
        clientClosed.incrementAndGet();
      }
    } catch (IOException e) {
      // The other side went first.
    } finally {
      try {
        from.close();
        to.close();
      } catch (IOException e) {
        // Already closed.
      }
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
