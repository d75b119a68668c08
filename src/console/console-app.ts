// The console's web app (hono): sign-in, CSRF checks, the inbox, the run list and pages, the schedules, and the actions.
import os from 'node:os';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { AgentClient } from '../client/agent-client';
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { ConsoleAccess } from './console-access';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import { cancelRun, forkRun, injectMessage, sendToThread, type ActionResult } from './console-actions';
import { addApprovalRoutes } from './console-approval-routes';
import type { Viewer } from './pages/approval-card';
import { errorContent } from './pages/approval-page';
import { listRuns, readInbox, readRunPage } from './console-reads';
import { runListFilterFrom } from './run-list-query';
import { ConsoleSessions } from './console-sessions';
import { inboxStream, LiveFeeds, runStream } from './console-streams';
import { consoleScript } from './pages/console-script';
import { consoleStyle } from './pages/console-style';
import { inboxContent, runPath } from './pages/inbox-page';
import { loginPage, page, resultPage, type Html, type PageFrame } from './pages/page-layout';
import { runContent } from './pages/run-page';
import { runsContent } from './pages/runs-page';
import { schedulesContent } from './pages/schedules-page';

/** What the console serves and who may use it. */
export interface ConsoleOptions {
  /** The client the console reads and acts through (its namespace, task queue and Web UI address). */
  agents: AgentClient;
  /** Sign-in and approver rules (default: none, for a console on 127.0.0.1 used by the local user). */
  access?: ConsoleAccess;
  /** Who decides when no sign-in is configured. Default: the OS user running the console. */
  localIdentity?: string;
  /** The workers' artifact store, to show offloaded tool results on demand (default: none). */
  artifacts?: ArtifactStore;
  /** How often live pages look for changes. Default: 2 s. */
  pollMs?: number;
  /** Called once per request with method, path, status and identity (never a body or a query value). */
  log?: (line: string) => void;
  /**
   * The key that signs each decision's proof of the signed-in person (`console --decision-key`),
   * for agents with `require_verified_decisions` (docs/hitl.md). Default: none, decisions go unsigned.
   */
  decisionKey?: DecisionSigningKey;
}

type Variables = { identity: string };

/**
 * The console as a hono app: mount its `fetch` in your own server (see `consoleRequestListener`
 * for Node's `http`), or start it with `startConsole`. It has no storage of its own: every page
 * is read from Temporal (visibility, queries, histories) through `options.agents`.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { createConsoleApp } from 'durable-agents/console';
 *
 * const app = createConsoleApp({ agents: await AgentClient.connect(), access: { tokens: [{ identity: 'alice@example.com', token: process.env.ALICE_TOKEN! }] } });
 * export default { fetch: app.fetch };
 */
export function createConsoleApp(options: ConsoleOptions): Hono<{ Variables: Variables }> {
  return buildConsole(options).app;
}

/** The app and its live feeds (which `startConsole` ends before it returns from `close`). */
export function buildConsole(options: ConsoleOptions): { app: Hono<{ Variables: Variables }>; feeds: LiveFeeds } {
  const { agents } = options;
  const feeds = new LiveFeeds();
  const access = options.access ?? {};
  const sessions = new ConsoleSessions(access, options.localIdentity ?? `local:${os.userInfo().username}`);
  const pollMs = options.pollMs ?? 2_000;
  const app = new Hono<{ Variables: Variables }>();

  app.use(async (context, next) => {
    await next();
    context.header('Content-Security-Policy', "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'");
    context.header('X-Content-Type-Options', 'nosniff');
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the console's own forms.
    context.header('Referrer-Policy', 'same-origin');
    options.log?.(`${context.req.method} ${new URL(context.req.url).pathname} ${context.res.status} ${context.get('identity') ?? '-'}`);
  });
  app.get('/assets/console.css', (context) =>
    context.body(consoleStyle, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  app.get('/assets/console.js', (context) =>
    context.body(consoleScript, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  app.get('/favicon.ico', (context) => context.body(null, 204));
  app.get('/login', (context) => context.html(loginPage(false)));
  app.post('/login', async (context) => {
    if (!sameOrigin(context)) return context.text('Cross-site request refused', 403);
    const body = await context.req.parseBody();
    const identity = typeof body.token === 'string' ? sessions.signIn(context, body.token) : null;
    return identity ? context.redirect('/', 303) : context.html(loginPage(true), 401);
  });

  // Everything else needs an identity; every POST a same-origin request with the identity's CSRF token.
  app.use(async (context, next) => {
    const identity = sessions.identify(context);
    if (!identity) {
      const wantsPage = context.req.method === 'GET' && (context.req.header('accept') ?? '').includes('text/html');
      return wantsPage ? context.redirect('/login', 303) : context.json({ ok: false, message: 'Sign in first (an access token).' }, 401);
    }
    context.set('identity', identity);
    if (context.req.method === 'POST') {
      const body = await context.req.parseBody();
      const token = context.req.header('x-csrf-token') ?? (typeof body.csrf === 'string' ? body.csrf : undefined);
      if (!sameOrigin(context) || !sessions.validCsrf(identity, token))
        return context.json({ ok: false, message: 'Refused: the request did not come from a console page (CSRF check).' }, 403);
    }
    await next();
  });
  app.post('/logout', (context) => {
    sessions.signOut(context);
    return context.redirect(sessions.signInRequired ? '/login' : '/', 303);
  });

  const render = (
    context: Context<{ Variables: Variables }>,
    title: string,
    section: PageFrame['section'],
    content: Html,
    streamUrl?: string,
    status: 200 | 404 | 409 | 500 = 200,
  ) => {
    const identity = context.get('identity');
    return context.html(
      page(
        { title, identity, section, csrf: sessions.signInRequired ? sessions.csrfToken(identity) : undefined, ...(streamUrl ? { streamUrl } : {}) },
        content,
      ),
      status,
    );
  };
  const viewer = (context: Context<{ Variables: Variables }>): Viewer => ({
    identity: context.get('identity'),
    approvers: access.approvers,
    csrf: sessions.csrfToken(context.get('identity')),
  });

  app.get('/', async (context) => {
    const order = context.req.query('order') === 'newest' ? 'newest' : 'oldest';
    const inbox = await readInbox(agents, order);
    const view = { order, mine: context.req.query('for') === 'me' } as const;
    return render(context, 'Approvals inbox', 'inbox', inboxContent(inbox, view, viewer(context), Date.now()), '/inbox/stream');
  });
  app.get('/inbox/stream', (context) => inboxStream(context, agents, pollMs, feeds));
  app.get('/runs', async (context) => {
    const { filter, problems } = runListFilterFrom((name) => context.req.query(name));
    return render(context, 'Runs and threads', 'runs', runsContent(await listRuns(agents, filter), filter, problems, Date.now()));
  });
  // Read-only, like the run list: changing a schedule stays with the CLI and the library (docs/schedules.md).
  app.get('/schedules', async (context) => render(context, 'Schedules', 'schedules', schedulesContent(await agents.schedules.list())));
  app.get('/runs/:id', async (context) => {
    const workflowId = context.req.param('id');
    try {
      const data = await readRunPage(agents, workflowId);
      return render(
        context,
        workflowId,
        'runs',
        runContent(data, sessions.csrfToken(context.get('identity')), Date.now(), viewer(context)),
        `${runPath(workflowId)}/stream`,
      );
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return render(context, 'Not found', 'runs', notFound(workflowId), undefined, 404);
      throw error;
    }
  });
  app.get('/runs/:id/stream', (context) => runStream(context, agents, context.req.param('id'), pollMs, feeds));
  app.get('/runs/:id/artifacts/:artifactId', async (context) => {
    const artifactId = context.req.param('artifactId');
    if (!options.artifacts) return context.text("The console has no artifact store (start it with the workers' artifact settings).", 404);
    // Only an artifact the run's own history names: an id alone does not open another run's data.
    const data = await readRunPage(agents, context.req.param('id')).catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    });
    if (!data) return context.text('No such run.', 404);
    const named = (data.transcript?.entries ?? data.thread?.turns.flatMap((turn) => turn.entries) ?? []).some(
      (entry) => entry.kind === 'tool' && entry.result?.metadata.offloaded_artifact_id === artifactId,
    );
    if (!named) return context.text('This run names no such artifact.', 404);
    const { content } = await options.artifacts.read(artifactId);
    return context.text(content);
  });

  const respond = (context: Context<{ Variables: Variables }>, result: ActionResult, back: string) =>
    (context.req.header('accept') ?? '').includes('application/json')
      ? context.json(result, result.httpStatus)
      : context.html(resultPage(context.get('identity'), result, back), result.httpStatus);
  const field = async (context: Context, name: string): Promise<string> => {
    const value = (await context.req.parseBody())[name];
    return typeof value === 'string' ? value.trim() : '';
  };

  addApprovalRoutes(app, { agents, approvers: access.approvers, decisionKey: options.decisionKey, viewer, render, respond });
  app.post('/runs/:id/inject', async (context) => {
    const text = await field(context, 'text');
    const workflowId = context.req.param('id');
    return respond(context, text ? await injectMessage(agents, workflowId, text) : emptyMessage, runPath(workflowId));
  });
  app.post('/runs/:id/messages', async (context) => {
    const text = await field(context, 'text');
    const workflowId = context.req.param('id');
    return respond(context, text ? await sendToThread(agents, workflowId, text) : emptyMessage, runPath(workflowId));
  });
  app.post('/runs/:id/fork', async (context) => {
    const workflowId = context.req.param('id');
    const fromStep = Number(await field(context, 'fromStep'));
    if (!Number.isInteger(fromStep) || fromStep < 1)
      return respond(context, { ok: false, httpStatus: 400, message: 'fromStep: must be a step number from 1' }, runPath(workflowId));
    return respond(context, await forkRun(agents, workflowId, fromStep, (await field(context, 'text')) || undefined), runPath(workflowId));
  });
  app.post('/runs/:id/cancel', async (context) => {
    const workflowId = context.req.param('id');
    const kind = (await agents.temporal.workflow.getHandle(workflowId).describe()).type === 'agentThread' ? 'thread' : 'run';
    return respond(context, await cancelRun(agents, workflowId, kind), runPath(workflowId));
  });
  app.notFound((context) =>
    wantsPage(context)
      ? render(
          context,
          'Not found',
          'none',
          errorContent('Not found', `The console has no page ${new URL(context.req.url).pathname}.`),
          undefined,
          404,
        )
      : context.json({ ok: false, message: 'Not found' }, 404),
  );
  app.onError((error, context) => {
    options.log?.(`error on ${context.req.method} ${new URL(context.req.url).pathname}: ${error.name}`);
    const message = `The console could not do that: ${error.message}`;
    return wantsPage(context) && context.get('identity')
      ? render(context, 'Something went wrong', 'none', errorContent('Something went wrong', message), undefined, 500)
      : context.json({ ok: false, message }, 500);
  });
  return { app, feeds };
}

const emptyMessage: ActionResult = { ok: false, httpStatus: 400, message: 'text: the message is empty' };

/** A browser's cross-site POST carries its page's Origin: only this console's own is accepted (none: a script, which needs the token anyway). */
function sameOrigin(context: Context): boolean {
  const origin = context.req.header('origin');
  if (!origin) return true;
  // The request's URL is built from its Host header (what the browser addressed).
  return origin !== 'null' && URL.canParse(origin) && new URL(origin).host === new URL(context.req.url).host;
}

/** A browser asking for a page (not a script, nor a form posted by the console's script). */
function wantsPage(context: Context): boolean {
  return context.req.method === 'GET' && (context.req.header('accept') ?? '').includes('text/html');
}

function notFound(workflowId: string): Html {
  return html`<div id="content"><h1>Not found</h1><p>No run or thread <strong>${workflowId}</strong> in this namespace. <a href="/runs">All runs and threads</a></p></div>`;
}
