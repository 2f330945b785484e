package dev.flows.examples.spring;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import org.springframework.stereotype.Component;

/**
 * Prices an order, then packs it (packing takes the order's {@code packingMillis}): two journaled
 * steps, so a run a crash interrupts after pricing resumes at packing. A bean: the starter
 * registers every {@code Flow} bean.
 */
// README:begin
@Component
public class PackOrder implements Flow<PackOrder.Order, PackOrder.Packed> {
  public record Order(String id, int quantity, long unitCents, long packingMillis) {}

  public record Packed(String order, long totalCents, String parcel) {}

  @Override
  public FlowHeader header() {
    return FlowHeader.named("pack-order").version("1").build();
  }

  @Override
  public Packed run(Ctx f, Order order) {
    long total = f.step("price", Long.class, () -> order.quantity() * order.unitCents());
    String parcel =
        f.step(
            "pack",
            String.class,
            () -> {
              Thread.sleep(order.packingMillis());
              return "parcel-" + order.id();
            });
    return new Packed(order.id(), total, parcel);
  }
}
// README:end
