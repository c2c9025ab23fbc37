/**
 * Silences in the input. kexp simulates the controller's own timers (requeues, the rate-limited
 * retries of the workqueue in k8s.io/client-go/util/workqueue) only SILENCE_HORIZON_MS past the
 * last event: when the input shows nothing for longer, what would come due in the silence is
 * dropped — kexp cannot know what happened there, and a far-future timestamp would otherwise make
 * it simulate years of retries — and the silence is recorded. A quiet input is not a gap
 * (nothing happened that it would have shown); only the controller's pending retries across the
 * silence are left unsimulated.
 *
 * Contract: `bridge(at, source)` is called with every event before the syncs due ahead of it
 * run; `finish(end)` runs, at the end of input, the syncs due up to the end of coverage but
 * never past the horizon after the last event. `silences` lists what was dropped.
 *
 * Cost: O(1) per event; a silence costs one run of the due syncs and one pass over the queue.
 * Pure: no I/O, no clock.
 */
import type { SourceRef } from '../../timeline/event.js';
import type { EngineController } from './engine-controller.js';

/**
 * How far past the last input event kexp simulates the controller (requeues, backoff retries).
 * Beyond it the input is silent and the simulation would be a guess (or, with a far-future
 * timestamp, years of retries).
 */
export const SILENCE_HORIZON_MS = 60 * 60_000;

/** A silence longer than SILENCE_HORIZON_MS across which pending syncs were not simulated. */
export interface Silence {
  from: number;
  until: number;
  dropped: number;
  source: SourceRef;
}

export class SilenceBridge {
  readonly silences: Silence[] = [];
  /** The latest event time seen. */
  private lastAt: number | undefined;

  constructor(
    private readonly controller: Pick<EngineController, 'runDue' | 'queue'>,
    private readonly windows: { drain(): void },
  ) {}

  /** The next event is at `at`: simulate at most the horizon past the last one, drop the rest. */
  bridge(at: number, source: SourceRef): void {
    if (this.lastAt !== undefined && at - this.lastAt > SILENCE_HORIZON_MS) {
      this.controller.runDue(this.lastAt + SILENCE_HORIZON_MS, true);
      this.windows.drain();
      const dropped = this.controller.queue.dropDue(at);
      if (dropped) this.silences.push({ from: this.lastAt + SILENCE_HORIZON_MS, until: at, dropped, source });
    }
    this.lastAt = Math.max(this.lastAt ?? at, at);
  }

  /** End of input at `end`: syncs due until then still run, never further than the horizon past the last event. */
  finish(end: number): void {
    const last = this.lastAt ?? end;
    this.controller.runDue(Math.min(end, last + SILENCE_HORIZON_MS), true);
    this.windows.drain();
  }
}
