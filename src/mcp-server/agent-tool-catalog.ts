// The named agents as MCP tools: which the workers offer and this door exposes, under MCP tool names, with their schemas.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../client/agent-client';
import { isExposedAt, type AgentOffer } from '../protocol/agent-offers';
import { mayUseAgent, type Principal } from '../gateway/gateway-auth';
import { MessageLimits } from '../protocol/message-validation';
import { OffersReader } from '../client/offers-reader';

/** MCP's tool name rule: 1-128 characters of letters, digits, `_`, `-` and `.`. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** One exposed agent under its tool name. */
export interface AgentTool {
  name: string;
  offer: AgentOffer;
}

/** Which agents the MCP server offers: `exposed` narrows the workers' agents that allow `mcp` further. */
export interface AgentCatalogOptions {
  /** Agent names the server offers (absent: every agent whose `expose` allows `mcp`). */
  exposed?: readonly string[];
}

/**
 * The workers' agents that the MCP door exposes, by tool name, read through the process's shared
 * `OffersReader` of the client (answers reused for ten seconds, one ask in flight), so a burst of
 * `tools/list` asks the workers once, and the gateway's A2A server asks with it. Holds no run state.
 */
export class AgentToolCatalog {
  private readonly offers: OffersReader;

  constructor(
    agents: AgentClient,
    private readonly options: AgentCatalogOptions = {},
  ) {
    this.offers = OffersReader.of(agents);
  }

  /** The exposed agents `principal` may use, as tools (sorted by name). */
  async toolsFor(principal: Principal): Promise<AgentTool[]> {
    const tools = await this.all();
    return tools.filter((tool) => mayUseAgent(principal, tool.offer.name));
  }

  /** The tool `name` names, when it is exposed and `principal` may use it; null otherwise (an unknown tool to the caller). */
  async find(principal: Principal, name: string): Promise<AgentTool | null> {
    const tools = await this.toolsFor(principal);
    return tools.find((tool) => tool.name === name) ?? null;
  }

  private async all(): Promise<AgentTool[]> {
    const offers = await this.offers.read();
    return toolNames(offers.filter((offer) => this.exposes(offer)));
  }

  private exposes(offer: AgentOffer): boolean {
    const listed = this.options.exposed;
    return isExposedAt(offer, 'mcp') && (listed === undefined || listed.includes(offer.name));
  }
}

/**
 * Each offer under an MCP tool name: its own when valid, else with the other characters as `_`
 * (and `_2`, `_3` on a clash). Valid names are taken first, so an agent keeps a name it already has.
 */
export function toolNames(offers: readonly AgentOffer[]): AgentTool[] {
  const taken = new Set(offers.map((offer) => offer.name).filter((name) => TOOL_NAME.test(name)));
  return [...offers]
    .sort((left, right) => left.name.localeCompare(right.name))
    .map((offer) => {
      if (TOOL_NAME.test(offer.name)) return { name: offer.name, offer };
      const base = offer.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120) || 'agent';
      let name = base;
      for (let suffix = 2; taken.has(name); suffix++) name = `${base}_${suffix}`;
      taken.add(name);
      return { name, offer };
    });
}

/** The MCP tool an agent is: its description, the `{ task, threadId? }` input, its output schema when it answers structured. */
export function toolDefinition(tool: AgentTool): Tool {
  const { offer } = tool;
  const outputSchema = objectSchemaOf(offer.outputType);
  return {
    name: tool.name,
    title: offer.name,
    description: offer.description ?? `The agent '${offer.name}' (${offer.model}): send it a task, get its answer.`,
    inputSchema: {
      type: 'object',
      properties: {
        task: {
          type: 'string',
          minLength: 1,
          maxLength: MessageLimits.injectedText,
          description: 'What to ask the agent (a run, or a turn of the thread).',
        },
        threadId: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'A thread to continue (or start): the task becomes its next message. Absent: a new run.',
        },
      },
      required: ['task'],
      additionalProperties: false,
    },
    ...(outputSchema ? { outputSchema } : {}),
    execution: { taskSupport: 'optional' },
    _meta: { 'durable-agents/agent': offer.name, 'durable-agents/version': offer.version },
  };
}

/** An agent's `output_type` when MCP can carry it (`structuredContent` is an object): an object schema, else null. */
export function objectSchemaOf(outputType: Record<string, unknown> | undefined): Tool['outputSchema'] | null {
  if (!outputType || outputType.type !== 'object') return null;
  return outputType as Tool['outputSchema'];
}
