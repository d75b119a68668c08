// What an operator can do about a failed run, by the failure's stable code (src/protocol/errors.ts).
import { ErrorCode, type ErrorCodeValue } from '../protocol/errors';

const HINTS: Partial<Record<ErrorCodeValue, string>> = {
  [ErrorCode.modelAuthFailed]:
    "The provider refused the API key. Check the key in the workers' environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...), restart them, then fork this run or start it again.",
  [ErrorCode.missingApiKey]: "The workers have no API key for this provider. Set it in the workers' environment and restart them.",
  [ErrorCode.modelNotFound]: "The provider does not know this model: check the config's `model` (provider:model) and the workers' providers.",
  [ErrorCode.modelBadRequest]:
    "The provider refused the request itself: check the model name, the tools' schemas and the config (temperature, max_tokens) against what the provider accepts.",
  [ErrorCode.modelRetriesExhausted]:
    "The provider kept failing (rate limits, server errors or timeouts) for every try of `max_retries`. Look at the provider's status, raise `max_retries` or `provider_limits`, then fork the run after its last good step.",
  [ErrorCode.modelStepFailed]: "A model step failed with an error of no known kind: the workers' log has its stack.",
  [ErrorCode.scriptedModelMismatch]: 'The scripted model and the run disagree: the script has no reply for this step, or an `expect` check failed.',
  [ErrorCode.hookFailed]:
    "A worker's lifecycle hook threw under `hook_errors: fail`: fix the hook (the message names it) or set `hook_errors: ignore`.",
  [ErrorCode.agentNotFound]: "The task queue's workers do not define this agent (or this version): deploy a worker that does.",
  [ErrorCode.agentConfigInvalid]: 'The config did not validate: the message names each field to fix.',
  [ErrorCode.searchAttributesMissing]: "The namespace lacks the runtime's search attributes: run `npx durable-agents setup` once.",
  [ErrorCode.payloadTooLarge]:
    'Something the run had to record was too large: lower `offload_threshold` or configure an artifact store on the workers.',
};

/** What to do about a failure of `code`, or null when there is no advice beyond its message. */
export function failureHint(code: string | null | undefined): string | null {
  return code ? (HINTS[code as ErrorCodeValue] ?? null) : null;
}
