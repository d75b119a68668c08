// The searchable list of runs and threads: agent, status, fork and evaluation links, cost.
import { html } from 'hono/html';
import type { ListedRun, RunListFilter } from '../console-reads';
import { runPath } from './inbox-page';
import { utcTime, type Html } from './page-layout';

const STATUSES = ['running', 'awaiting_approval', 'idle', 'closed'] as const;

/** The run list's content: the search form, then a row per run or thread. */
export function runsContent(runs: ListedRun[], filter: RunListFilter): Html {
  const selected = (value: string | undefined, option: string) =>
    value === option ? html`<option value="${option}" selected>${option}</option>` : html`<option value="${option}">${option}</option>`;
  return html`<div id="content">
<h1>Runs and threads${filter.evaluation ? html` of evaluation ${filter.evaluation}` : ''}</h1>
<form method="get" action="/runs" class="inline" role="search">
  <label>Agent name or id prefix <input type="search" name="q" value="${filter.search ?? ''}"></label>
  <label>Status <select name="status"><option value="">any</option>${STATUSES.map((status) => selected(filter.status, status))}</select></label>
  <label>Kind <select name="kind"><option value="">runs and threads</option>${selected(filter.kind, 'run')}${selected(filter.kind, 'thread')}</select></label>
  ${filter.evaluation ? html`<input type="hidden" name="evaluation" value="${filter.evaluation}">` : ''}<button type="submit">Search</button>
</form>
${
  runs.length === 0
    ? html`<p class="card">Nothing found.</p>`
    : html`<table>
<thead><tr><th scope="col">Id</th><th scope="col">Kind</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Cost</th><th scope="col">Origin</th></tr></thead>
<tbody>${runs.map(
        (run) => html`<tr>
<td><a href="${runPath(run.workflowId)}">${run.workflowId}</a></td>
<td>${run.kind}</td>
<td>${run.agent ?? ''}</td>
<td><span class="status ${run.status}">${run.status.replace('_', ' ')}</span></td>
<td>${utcTime(run.startTime)}</td>
<td>${run.costUsd === null ? '' : `$${run.costUsd.toFixed(4)}`}</td>
<td>${run.forkOf ? html`fork of <a href="${runPath(run.forkOf)}">${run.forkOf}</a>` : ''}${run.evaluation ? html`evaluation <a href="/runs?evaluation=${encodeURIComponent(run.evaluation)}">${run.evaluation}</a>` : ''}</td>
</tr>`,
      )}</tbody></table>`
}
</div>`;
}
