// The searchable list of runs and threads: by agent, status, start time and duration; fork, parent and evaluation links, cost.
import { html } from 'hono/html';
import { formatDuration } from '../../config/duration';
import type { ListedRun } from '../console-reads';
import { RUN_LIST_STATUSES, type RunListFilter } from '../run-list-query';
import { runPath } from './inbox-page';
import { utcTime, type Html } from './page-layout';

/** A duration filter as it was typed back into its field (`90000` → `90s`). */
function durationField(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** A time filter as a datetime-local field's value (UTC, to the minute). */
function timeField(at: Date | undefined): string {
  return at ? at.toISOString().slice(0, 16) : '';
}

/** How long a run ran (closed) or has been running (open). */
export function runDuration(run: Pick<ListedRun, 'startTime' | 'closeTime'>, now: number): string {
  const end = run.closeTime?.getTime() ?? now;
  const text = formatDuration(Math.max(0, end - run.startTime.getTime()));
  return run.closeTime ? text : `${text} so far`;
}

/** The run list's content: the search form (any invalid value named), then a row per run or thread. */
export function runsContent(runs: ListedRun[], filter: RunListFilter, problems: string[] = [], now: number = Date.now()): Html {
  const selected = (value: string | undefined, option: string, label = option.replace('_', ' ')) =>
    value === option ? html`<option value="${option}" selected>${label}</option>` : html`<option value="${option}">${label}</option>`;
  return html`<div id="content">
<h1>Runs and threads${filter.evaluation ? html` of evaluation ${filter.evaluation}` : ''}</h1>
<form method="get" action="/runs" class="inline" role="search">
  <label>Agent name or id prefix <input type="search" name="q" value="${filter.search ?? ''}"></label>
  <label>Status <select name="status"><option value="">any</option>${Object.keys(RUN_LIST_STATUSES).map((status) => selected(filter.status, status, status === 'running' ? 'running (any open)' : undefined))}</select></label>
  <label>Kind <select name="kind"><option value="">runs and threads</option>${selected(filter.kind, 'run')}${selected(filter.kind, 'thread')}</select></label>
  <label>Started from (UTC) <input type="datetime-local" name="from" value="${timeField(filter.startedFrom)}"></label>
  <label>to (UTC) <input type="datetime-local" name="to" value="${timeField(filter.startedTo)}"></label>
  <label>Ran at least <input type="text" name="min_duration" size="6" placeholder="30s" value="${durationField(filter.minDurationMs)}"></label>
  <label>at most <input type="text" name="max_duration" size="6" placeholder="2h" value="${durationField(filter.maxDurationMs)}"></label>
  ${filter.evaluation ? html`<input type="hidden" name="evaluation" value="${filter.evaluation}">` : ''}<button type="submit">Search</button>
</form>
${problems.length > 0 ? html`<div class="card failure" role="alert" id="filter-problems">Left out of the search: ${problems.map((problem) => html`<p>${problem}</p>`)}</div>` : ''}
${
  runs.length === 0
    ? html`<p class="card">Nothing found.</p>`
    : html`<table>
<thead><tr><th scope="col">Id</th><th scope="col">Kind</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Cost</th><th scope="col">Origin</th></tr></thead>
<tbody>${runs.map(
        (run) => html`<tr data-run="${run.workflowId}">
<td><a href="${runPath(run.workflowId)}">${run.workflowId}</a></td>
<td>${run.kind}</td>
<td>${run.agent ?? ''}</td>
<td><span class="status ${run.status}">${run.status.replace('_', ' ')}</span></td>
<td>${utcTime(run.startTime)}</td>
<td>${runDuration(run, now)}</td>
<td>${run.costUsd === null ? '' : `$${run.costUsd.toFixed(4)}`}</td>
<td>${run.parent ? html`sub-agent of <a href="${runPath(run.parent)}">${run.parent}</a>` : ''}${run.forkOf ? html`fork of <a href="${runPath(run.forkOf)}">${run.forkOf}</a>` : ''}${run.evaluation ? html`evaluation <a href="/runs?evaluation=${encodeURIComponent(run.evaluation)}">${run.evaluation}</a>` : ''}</td>
</tr>`,
      )}</tbody></table>`
}
</div>`;
}
