// The list of schedules: when each fires, what it does, whether it is paused, and its next fire times.
import { html } from 'hono/html';
import type { AgentScheduleSummary } from '../../client/schedules/schedule-options';
import { runPath } from './inbox-page';
import { utcTime, type Html } from './page-layout';

/** The schedules page's content: a row per schedule of the namespace (docs/schedules.md). */
export function schedulesContent(schedules: AgentScheduleSummary[]): Html {
  return html`<div id="content">
<h1>Schedules</h1>
${
  schedules.length === 0
    ? html`<p class="card">No schedules. Create one with <code>durable-agents schedule create</code> or <code>agents.schedules.create</code>.</p>`
    : html`<table>
<thead><tr><th scope="col">Id</th><th scope="col">When</th><th scope="col">Does</th><th scope="col">State</th><th scope="col">Next fires</th><th scope="col">Latest fire</th></tr></thead>
<tbody>${schedules.map((schedule) => {
        const latest = schedule.recentActions.at(-1);
        return html`<tr>
<td>${schedule.scheduleId}</td>
<td>${whenOf(schedule)}</td>
<td>${doesOf(schedule)}</td>
<td><span class="status ${schedule.paused ? 'idle' : 'running'}">${schedule.paused ? 'paused' : 'active'}</span>${schedule.note ? html` <small>${schedule.note}</small>` : ''}</td>
<td>${schedule.nextActionTimes.slice(0, 3).map((time, index) => html`${index > 0 ? html`<br>` : ''}${utcTime(time)}`)}</td>
<td>${latest ? html`<a href="${runPath(latest.workflowId)}">${utcTime(latest.takenAt)}</a>` : ''}</td>
</tr>`;
      })}</tbody></table>`
}
</div>`;
}

function whenOf({ spec }: AgentScheduleSummary): string {
  return [
    ...spec.cron.map((expression) => `cron ${expression}`),
    ...(spec.every ? [`every ${spec.every}${spec.offset ? ` + ${spec.offset}` : ''}`] : []),
    ...(spec.timezone ? [spec.timezone] : []),
    ...(spec.jitter ? [`jitter ${spec.jitter}`] : []),
  ].join(', ');
}

function doesOf({ action }: AgentScheduleSummary): Html {
  if (action.kind === 'run') return html`run <strong>${action.agent ?? ''}</strong>: ${action.task ?? ''}`;
  if (action.kind === 'thread')
    return html`post to thread <a href="${runPath(action.threadId ?? '')}">${action.threadId ?? ''}</a>: ${action.text ?? ''}`;
  return html`start ${action.workflowType}`;
}
