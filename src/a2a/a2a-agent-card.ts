// An exposed named agent as an A2A agent card: its name, description, version, skills (itself and its tools), where to call it and how to sign in.
import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill, type SecurityScheme } from '@a2a-js/sdk';
import type { AgentOffer } from '../protocol/agent-offers';

/** What a card says besides the agent's offer. */
export interface AgentCardSettings {
  /** The agent's JSON-RPC endpoint (`<gateway>/a2a/<agent>`). */
  url: string;
  /** Whether callers must send `Authorization: Bearer <API key or JWT>` (the gateway has keys or JWT settings). */
  authenticated: boolean;
  /** Whether the gateway sends push notifications (it has A2A push keys). */
  pushNotifications?: boolean;
}

/** The scheme name cards give the gateway's bearer credentials. */
export const BEARER_SCHEME = 'bearer';

/** The skill id of the agent itself (its whole task); the others are `tool:<name>`. */
export function agentSkillId(offer: Pick<AgentOffer, 'name'>): string {
  return offer.name;
}

/** The skill ids a message's `metadata.skill` may name for this agent. */
export function skillIds(offer: Pick<AgentOffer, 'name' | 'tools'>): string[] {
  return [agentSkillId(offer), ...offer.tools.map((tool) => `tool:${tool}`)];
}

/**
 * The agent's description: the offer's (the config's `description`, where workers give one), else
 * a line saying what it runs with.
 */
export function describeAgent(offer: AgentOffer): string {
  const given = (offer as AgentOffer & { description?: unknown }).description;
  if (typeof given === 'string' && given.trim()) return given.trim();
  const tools = offer.tools.length > 0 ? ` with tools ${offer.tools.join(', ')}` : '';
  return `Agent '${offer.name}' (${offer.model})${tools}: send it a task as a message; it answers durably.`;
}

/** The A2A card of `offer` (A2A 1.0, with the same endpoint also answering A2A 0.3 method names). */
export function agentCardOf(offer: AgentOffer, settings: AgentCardSettings): AgentCard {
  const description = describeAgent(offer);
  const skill = (id: string, name: string, text: string, tags: string[]): AgentSkill => ({
    id,
    name,
    description: text,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  });
  const bearer: SecurityScheme = {
    scheme: {
      $case: 'httpAuthSecurityScheme',
      value: { description: "The gateway's API key or JWT (docs/gateway.md)", scheme: 'Bearer', bearerFormat: 'API key or JWT' },
    },
  };
  return {
    name: offer.name,
    description,
    supportedInterfaces: [
      { url: settings.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: settings.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: offer.version,
    documentationUrl: undefined,
    capabilities: { streaming: true, pushNotifications: settings.pushNotifications ?? false, extensions: [], extendedAgentCard: false },
    securitySchemes: settings.authenticated ? { [BEARER_SCHEME]: bearer } : {},
    securityRequirements: settings.authenticated ? [{ schemes: { [BEARER_SCHEME]: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      skill(agentSkillId(offer), offer.name, description, ['agent', ...(offer.label ? [offer.label] : [])]),
      ...offer.tools.map((tool) => skill(`tool:${tool}`, tool, `${offer.name} may call the tool ${tool} while it works on a task`, ['tool'])),
    ],
    signatures: [],
    iconUrl: undefined,
  };
}
