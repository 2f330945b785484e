package dev.flows.examples.spring;

import dev.flows.embed.Flows;
import dev.flows.embed.StartOptions;
import java.time.Duration;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders}: runs {@link PackOrder} for the order and answers its result. The order id
 * is the run's key: the same order posted twice is one run, answered twice.
 */
@RestController
public class OrdersController {
  /** How long a request waits for its run. */
  static final Duration WAIT = Duration.ofSeconds(30);

  private final Flows flows;

  public OrdersController(Flows flows) {
    this.flows = flows;
  }

  // README:begin
  @PostMapping("/orders")
  public PackOrder.Packed pack(@RequestBody PackOrder.Order order) throws InterruptedException {
    return flows.start(PackOrder.class, order, StartOptions.key(order.id())).result(WAIT);
  }
  // README:end
}
