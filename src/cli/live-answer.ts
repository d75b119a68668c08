/**
 * Prints each step's answer once, whether it arrives as streamed snapshots, as the final
 * `text-produced` event, or both. A snapshot that extends what is shown prints only the new part;
 * a retried step whose new text departs from what was shown prints a marker and starts over, so
 * a retry never repeats text. Lines are indented like the other event lines.
 *
 * Snapshots and events come by separate polls, so a step's first words can arrive before the
 * event lines of the step before it: a snapshot waits until the event lines have reached its step
 * (`reach`), so an answer is never printed under the previous step or cut by its tool lines.
 */
export class LiveAnswer {
  private readonly shown = new Map<number, string>();
  private readonly finished = new Set<number>();
  /** The newest text of steps the event lines have not reached yet. */
  private readonly held = new Map<number, string>();
  private reached = 0;
  private openStep: number | null = null;

  constructor(private readonly write: (text: string) => void) {}

  /** The text so far of `step` (from a streaming model step). */
  snapshot(step: number, text: string): void {
    if (this.finished.has(step)) return;
    if (step > this.reached) this.held.set(step, text);
    else this.show(step, text);
  }

  /** The event lines have reached `step`: the held text of it (and of earlier steps) is shown now. */
  reach(step: number): void {
    if (step <= this.reached) return;
    this.reached = step;
    for (const [heldStep, text] of this.held) {
      if (heldStep > step) continue;
      this.held.delete(heldStep);
      this.snapshot(heldStep, text);
    }
  }

  /**
   * The step's final text. Returns false when nothing of it was streamed (the caller prints the
   * event as usual); otherwise prints what is still missing and ends the line.
   */
  final(step: number, text: string): boolean {
    if (this.finished.has(step)) return true;
    this.finished.add(step);
    this.held.delete(step);
    if (!this.shown.has(step)) return false;
    this.show(step, text);
    this.endLine();
    return true;
  }

  /** Ends a partly written answer line before another line is printed. */
  endLine(): void {
    if (this.openStep === null) return;
    this.write('\n');
    this.openStep = null;
  }

  private show(step: number, text: string): void {
    const shown = this.shown.get(step);
    if (shown !== undefined && shown.startsWith(text)) return;
    if (this.openStep !== step) {
      this.endLine();
      this.write('  ');
      this.openStep = step;
    }
    if (shown === undefined || text.startsWith(shown)) {
      this.write(indent(text.slice(shown?.length ?? 0)));
    } else {
      this.write(`\n  ↻ step ${step} was retried; its answer starts again:\n  ${indent(text)}`);
    }
    this.shown.set(step, text);
  }
}

function indent(text: string): string {
  return text.split('\n').join('\n  ');
}
