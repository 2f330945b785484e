package dev.flows.mcp.client;

import java.net.http.HttpHeaders;
import java.util.Map;

/**
 * Credentials for one HTTP server. Header values are computed per request and never logged. The
 * transport asks {@link #onChallenge} on 401 and 403; a true answer means new credentials are in
 * place and the request is worth one more try. Each implementation breaks its own loops (it answers
 * false once retrying cannot help).
 */
public interface HttpAuthenticator {
  /** Headers to add to a request (e.g. Authorization). */
  Map<String, String> headers();

  /** A 401 or 403 arrived; returns whether to retry the request. */
  boolean onChallenge(int status, HttpHeaders headers);

  /** No credentials at all. */
  HttpAuthenticator NONE =
      new HttpAuthenticator() {
        @Override
        public Map<String, String> headers() {
          return Map.of();
        }

        @Override
        public boolean onChallenge(int status, HttpHeaders headers) {
          return false;
        }
      };
}
