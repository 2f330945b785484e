package dev.flows.mcp.testkit;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.util.List;
import java.util.concurrent.Semaphore;
import reactor.core.publisher.Mono;

/**
 * An SDK server transport provider whose session sends one message at a time.
 *
 * <p>The SDK's stdio provider queues each outgoing message on a unicast sink that refuses a
 * concurrent emitter; it retries a refused emission for only 100 ms and then fails the send, and
 * that failure ends the whole session while the process lives on, deaf and silent. A sync server
 * answers concurrent tool calls from several threads, so on a loaded machine 16 concurrent callers
 * lose every call after the first refusal. Taking turns here means the sink never sees two
 * emitters.
 */
public final class SerialisedSends implements McpServerTransportProvider {
  private final McpServerTransportProvider delegate;

  public SerialisedSends(McpServerTransportProvider delegate) {
    this.delegate = delegate;
  }

  @Override
  public void setSessionFactory(McpServerSession.Factory sessionFactory) {
    delegate.setSessionFactory(transport -> sessionFactory.create(oneAtATime(transport)));
  }

  /** The transport with its sends taking turns: each holds the turn until it has completed. */
  public static McpServerTransport oneAtATime(McpServerTransport transport) {
    return new OneAtATime(transport);
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    return delegate.notifyClients(method, params);
  }

  @Override
  public Mono<Void> notifyClient(String sessionId, String method, Object params) {
    return delegate.notifyClient(sessionId, method, params);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }

  /** The session's transport with its sends taking turns. */
  private record OneAtATime(McpServerTransport delegate, Semaphore turn)
      implements McpServerTransport {
    OneAtATime(McpServerTransport delegate) {
      this(delegate, new Semaphore(1));
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
      // Once the transport is started the delegate's send enqueues while it is subscribed, so
      // holding the turn from subscription to completion covers the emission.
      return Mono.defer(
          () -> {
            turn.acquireUninterruptibly();
            return delegate.sendMessage(message).doFinally(signal -> turn.release());
          });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public void close() {
      delegate.close();
    }

    @Override
    public List<String> protocolVersions() {
      return delegate.protocolVersions();
    }
  }
}
