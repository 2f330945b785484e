package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.testing.FlowsTestEnvironment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The test kit's public API (package {@code dev.flows.testing}) is pinned as sdk/api's and
 * sdk/embed's are ({@link PublicApiSurfaceTest}): listed in {@code sdk/testing/api-surface.txt}
 * ({@code -Dapi.surface.update=true} rewrites it), and its signatures name only the public API's
 * types, the kit's own, JUnit's and AssertJ's (an extension and custom asserts are made of them).
 * In this package to reuse the check, which the embedding API's tests own.
 */
class TestKitApiSurfaceTest {
  private static final String KIT = "dev.flows.testing";

  private static ApiSurface surface() throws Exception {
    List<String> allowed = new ArrayList<>(ApiSurface.ALLOWED_PREFIXES);
    allowed.add("org.junit.jupiter.api.");
    allowed.add("org.assertj.core.api.");
    return ApiSurface.of(
        PublicApiSurfaceTest.classes(FlowsTestEnvironment.class),
        KIT,
        Set.of("dev.flows.sdk", "dev.flows.embed", KIT),
        allowed);
  }

  @Test
  void theSurfaceOfTheTestKitIsTheCheckedInList() throws Exception {
    PublicApiSurfaceTest.pinned(
        surface().lines(), PublicApiSurfaceTest.ROOT.resolve("sdk/testing/api-surface.txt"));
  }

  @Test
  void noPublicSignatureOfTheKitNamesATypeItDoesNotOwn() throws Exception {
    assertThat(surface().leaks())
        .as("public signatures of the test kit naming other types")
        .isEmpty();
  }
}
