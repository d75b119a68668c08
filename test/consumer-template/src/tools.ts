import { z } from 'zod';
import { defineTool } from 'durable-agents';

/** Orders this pretend shop knows; anything else is "not found". */
const ORDERS: Record<string, { status: string; total: number }> = {
  '42': { status: 'shipped', total: 25 },
  '7': { status: 'delivered', total: 12 },
};

/** A plain tool: its object result reaches the model as JSON. */
export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'The status and total of an order',
  parameters: z.object({ orderId: z.string() }),
  execute: async ({ orderId }, context) => {
    const order = ORDERS[orderId];
    if (!order) throw new Error(`order ${orderId} not found`);
    context.heartbeat();
    return { orderId, status: order.status, total: order.total };
  },
});

/** A tool with side effects: agents list it in `hitl_tools`, so a person approves each call. */
export const refund = defineTool({
  name: 'refund',
  description: 'Refund (part of) an order',
  parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
  childSafe: false,
  execute: async ({ orderId, amount }) => `Refunded ${amount} EUR on order ${orderId}`,
});

export const supportTools = [lookupOrder, refund];

/** What `durable-agents worker --tools dist/tools.js` registers. */
export const tools = supportTools;
