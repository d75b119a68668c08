import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { types } from 'node:util';
import { pino, type Logger as PinoLogger } from 'pino';

/**
 * The process logger (pino, JSON lines on stderr) and its adapter into Temporal's Runtime, so SDK,
 * workflow and activity logs share one stream. Level from `LOG_LEVEL` (default info).
 */
export function createProcessLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): PinoLogger {
  return pino(
    {
      name,
      level,
      // Tool arguments and prompts may hold user data: never log them by default.
      redact: { paths: ['args', 'prompt', 'messages', '*.args', '*.apiKey', 'apiKey'], censor: '[redacted]' },
    },
    pino.destination(2),
  );
}

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

export class PinoTemporalLogger implements Logger {
  constructor(private readonly logger: PinoLogger) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    this.logger[PINO_LEVEL[level]](meta ? withErrorsSerialised(meta) : {}, message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/**
 * The metadata with each error in it made readable: JSON has no fields for an Error (its message
 * and stack are not enumerable), so the SDK's "Workflow failed" line showed `"error":{}`.
 */
function withErrorsSerialised(meta: LogMetadata): LogMetadata {
  if (!Object.values(meta).some(isError)) return meta;
  return Object.fromEntries(Object.entries(meta).map(([key, value]) => [key, isError(value) ? serialisedError(value) : value]));
}

/** An Error of any realm (a workflow thread's, a VM context's): `instanceof` alone misses those. */
function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/** An error as a log line shows it: class, message, Temporal failure type, stack, and its causes (a few levels). */
export function serialisedError(error: Error, depth = 0): Record<string, unknown> {
  // The failure's `details` and raw `failure` proto are left out: they may carry payload data.
  const { type, nonRetryable } = error as { type?: unknown; nonRetryable?: unknown };
  // Workflow errors reach the main thread as structured clones: a plain Error whose stack still names the class.
  const stackName = /^(\w+(?:Error|Failure))\b/.exec(error.stack ?? '')?.[1];
  return {
    name: error.name === 'Error' && stackName ? stackName : error.name,
    message: error.message,
    ...(typeof type === 'string' ? { type } : {}),
    ...(typeof nonRetryable === 'boolean' ? { nonRetryable } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
    ...(isError(error.cause) && depth < 4 ? { cause: serialisedError(error.cause, depth + 1) } : {}),
  };
}
