package dev.flows.worker;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a worker's reconciler runs once per reconcile interval besides expiring leases (e.g. the
 * {@code tasks/cancel} of tasks whose runs ended). A failing sweep is logged and runs again next
 * interval; each should hand slow work to a thread of its own.
 */
final class ReconcileSweeps {
  private static final Logger LOG = LoggerFactory.getLogger(ReconcileSweeps.class);

  private final List<Runnable> sweeps = new java.util.concurrent.CopyOnWriteArrayList<>();

  void add(Runnable sweep) {
    sweeps.add(sweep);
  }

  void runAll() {
    for (Runnable sweep : sweeps) {
      try {
        sweep.run();
      } catch (RuntimeException e) {
        TransientFaults.log(LOG, "a reconciler sweep failed; trying again next interval", e);
      }
    }
  }
}
