package dev.flows.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JUnit 5 test class whose test methods (and {@code @BeforeEach} methods) get a fresh {@link
 * FlowsTestEnvironment} as a parameter, closed after each test:
 *
 * <pre>{@code
 * @FlowsTest
 * class ApprovalTest {
 *   @Test
 *   void timesOut(FlowsTestEnvironment env) throws Exception {
 *     env.register(new Approval());
 *     RunHandle<String> run = env.start(Approval.class, "order-42");
 *     assertThat(env.result(run)).isEqualTo("timed out");
 *   }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(FlowsTestExtension.class)
public @interface FlowsTest {
  /** Where the journal is: in memory (default) or on an embedded Postgres. */
  JournalKind journal() default JournalKind.MEMORY;

  /** Whether waiting for a run skips time while every run waits on time. */
  boolean autoSkip() default true;
}
