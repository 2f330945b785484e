package dev.flows.testing;

import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * {@link FlowsTest}'s extension: one {@link FlowsTestEnvironment} per test method, made as the
 * annotation says at the first parameter that asks for it, closed after the test.
 */
public final class FlowsTestExtension implements ParameterResolver, AfterEachCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(FlowsTestExtension.class);
  private static final String KEY = "environment";

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == FlowsTestEnvironment.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    FlowsTestEnvironment env = store.get(KEY, FlowsTestEnvironment.class);
    if (env == null) {
      Optional<FlowsTest> options = options(context.getRequiredTestClass());
      env =
          FlowsTestEnvironment.builder()
              .journal(options.map(FlowsTest::journal).orElse(JournalKind.MEMORY))
              .autoSkip(options.map(FlowsTest::autoSkip).orElse(true))
              .build();
      store.put(KEY, env);
    }
    return env;
  }

  /** The annotation on the test class, else on the class it is nested in (a {@code @Nested}). */
  private static Optional<FlowsTest> options(Class<?> testClass) {
    for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
      Optional<FlowsTest> found = AnnotationSupport.findAnnotation(c, FlowsTest.class);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    FlowsTestEnvironment env = context.getStore(NAMESPACE).remove(KEY, FlowsTestEnvironment.class);
    if (env != null) {
      env.close();
    }
  }
}
