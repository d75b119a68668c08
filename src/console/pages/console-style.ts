// The console's style sheet: plain CSS, served inline so the page needs no build step or static files.

/** The CSS of every console page (readable type, visible focus, high contrast, no framework). */
export const consoleStyle = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --panel: #f6f8fa; --line: #d0d7de;
  --accent: #0a58ca; --ok: #1a7f37; --bad: #b42318; --warn: #9a6700; --user: #eef4ff; --assistant: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --panel: #161b22; --line: #30363d;
  --accent: #6ea8fe; --ok: #3fb950; --bad: #f85149; --warn: #d29922; --user: #13233f; --assistant: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; }
header.top { display: flex; gap: 24px; align-items: center; padding: 10px 24px; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top nav a { margin-right: 16px; font-weight: 600; text-decoration: none; }
header.top nav a[aria-current="page"] { text-decoration: underline; }
header.top .who { margin-left: auto; color: var(--muted); }
main { max-width: 1100px; margin: 0 auto; padding: 16px 24px 64px; }
h1 { font-size: 1.5rem; margin: 8px 0 16px; } h2 { font-size: 1.2rem; margin: 24px 0 8px; } h3 { font-size: 1.05rem; margin: 0; }
.muted { color: var(--muted); } .small { font-size: 0.85rem; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin: 4px 0; max-height: 24rem; overflow: auto; font-size: 0.85rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; background: var(--bg); }
.approval { border-left: 4px solid var(--warn); }
.approval dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 8px 0; }
.approval dt { font-weight: 600; } .approval dd { margin: 0; }
.timeout { color: var(--warn); }
form.inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-top: 8px; }
label { display: flex; flex-direction: column; font-size: 0.85rem; color: var(--muted); gap: 2px; }
input, select, textarea { font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
textarea { min-width: 28rem; min-height: 3rem; }
button { font: inherit; font-weight: 600; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: var(--fg); cursor: pointer; }
button.approve { background: var(--ok); border-color: var(--ok); color: #fff; }
button.reject, button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
button[disabled] { opacity: 0.6; cursor: progress; }
.result:empty { display: none; } .result { margin: 8px 0 0; padding: 6px 10px; border-radius: 6px; background: var(--panel); }
.result.ok { border-left: 4px solid var(--ok); } .result.refused { border-left: 4px solid var(--bad); }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.85rem; color: var(--muted); }
.status { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 0.8rem; border: 1px solid var(--line); }
.status.awaiting_approval { border-color: var(--warn); color: var(--warn); } .status.failed, .status.terminated { color: var(--bad); border-color: var(--bad); }
.status.completed { color: var(--ok); border-color: var(--ok); }
.conversation { display: flex; flex-direction: column; gap: 10px; }
.message { border-radius: 10px; padding: 8px 12px; max-width: 85%; border: 1px solid var(--line); }
.message.user { align-self: flex-end; background: var(--user); } .message.assistant { align-self: flex-start; background: var(--assistant); }
.message .role { display: block; font-size: 0.75rem; font-weight: 700; color: var(--muted); text-transform: uppercase; }
.message p { margin: 0; white-space: pre-wrap; }
.tool { border-left: 4px solid var(--accent); }
.marker { text-align: center; color: var(--muted); font-size: 0.85rem; border-top: 1px dashed var(--line); padding-top: 4px; }
.failure { color: var(--bad); }
#live-box:has(#live:empty) { display: none; } #live-box { border-style: dashed; }
/* Approvals: no value in a scroll box (the end of a long one is always shown), sizes beside names, what the tool does first. */
.approval pre { max-height: none; overflow: visible; }
.approval.dangerous { border-left-color: var(--bad); }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 0.75rem; font-weight: 700; text-transform: uppercase; }
.badge.danger { background: var(--bad); color: #fff; }
.tool-description { margin: 6px 0; padding: 6px 10px; border-left: 3px solid var(--accent); background: var(--panel); white-space: pre-wrap; }
.arguments .size { font-weight: 400; color: var(--muted); font-size: 0.8rem; display: block; }
.value.long .head { border-bottom-left-radius: 0; border-bottom-right-radius: 0; margin-bottom: 0; }
.value.long .middle > summary { padding: 4px 8px; border: 1px dashed var(--line); font-size: 0.85rem; cursor: pointer; color: var(--accent); }
.value.long .middle > pre { margin: 0; border-radius: 0; }
.value.long .tail { border-top: 2px solid var(--warn); margin-top: 0; border-top-left-radius: 0; border-top-right-radius: 0; }
.warning { color: var(--warn); font-weight: 600; margin: 4px 0; }
.deciders .may { color: var(--ok); } .deciders .may-not { color: var(--bad); }
.step-group { border: 2px dashed var(--line); border-radius: 10px; padding: 4px 12px; margin: 16px 0; }
.step-group .group-title { font-size: 1.05rem; margin: 8px 0 4px; }
.filters a { margin-right: 12px; } .filters a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--fg); }
.error-page h1 { color: var(--bad); }
/* Operators: a run's failure with its code, what waits for a decision, the model as written (never upper-cased). */
.status.cancelled, .status.timed_out { color: var(--warn); border-color: var(--warn); }
.message .model { font-family: ui-monospace, monospace; font-size: 0.75rem; word-break: break-all; text-transform: none; }
.run-failure { border-left: 4px solid var(--bad); } .run-failure p { margin: 6px 0 0; white-space: pre-wrap; }
code.error-code { font-weight: 700; color: var(--bad); }
.waiting { color: var(--warn); margin: 4px 0; }
#stale[hidden] { display: none; } #stale { position: sticky; top: 0; background: var(--warn); color: #000; padding: 6px 12px; border-radius: 6px; }
`;
