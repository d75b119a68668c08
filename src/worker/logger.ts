import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { pino, type Logger as PinoLogger } from 'pino';

/**
 * The process logger (pino, JSON lines on stderr) and its adapter into Temporal's Runtime, so SDK,
 * workflow and activity logs share one stream. Level from `LOG_LEVEL` (default info).
 */
export function createProcessLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): PinoLogger {
  return pino({
    name,
    level,
    // Tool arguments and prompts may hold user data: never log them by default.
    redact: { paths: ['args', 'prompt', 'messages', '*.args', '*.apiKey', 'apiKey'], censor: '[redacted]' },
  }, pino.destination(2));
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
    this.logger[PINO_LEVEL[level]](meta ?? {}, message);
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
