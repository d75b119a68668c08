import { z } from 'zod';
import { defineTool, type Tool } from './define-tool';

/**
 * Offline, deterministic tools for the demo agent: same input, same output, no network.
 */

const WEATHER: Record<string, { condition: string; celsius: number }> = {
  tokyo: { condition: 'light rain', celsius: 14 },
  paris: { condition: 'overcast', celsius: 9 },
  'new york': { condition: 'clear', celsius: 6 },
  lisbon: { condition: 'sunny', celsius: 17 },
};

const UTC_OFFSETS: Record<string, string> = {
  tokyo: '+09:00',
  paris: '+01:00',
  'new york': '-05:00',
  lisbon: '+00:00',
};

export const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city: condition and temperature in Celsius.',
  parameters: z.object({ city: z.string().min(1).describe('City name, for example "Tokyo"') }),
  execute: ({ city }) => {
    const found = WEATHER[city.toLowerCase()];
    if (!found) throw new Error(`No weather station for '${city}'. Known cities: ${Object.keys(WEATHER).join(', ')}`);
    return { city, ...found };
  },
});

export const getTimezone = defineTool({
  name: 'get_timezone',
  description: "A city's UTC offset.",
  parameters: z.object({ city: z.string().min(1) }),
  execute: ({ city }) => {
    const offset = UTC_OFFSETS[city.toLowerCase()];
    if (!offset) throw new Error(`Unknown city '${city}'`);
    return { city, utc_offset: offset };
  },
});

export const convertTemperature = defineTool({
  name: 'convert_temperature',
  description: 'Converts a temperature between Celsius and Fahrenheit.',
  parameters: z.object({ value: z.number(), to: z.enum(['celsius', 'fahrenheit']) }),
  execute: ({ value, to }) => {
    const converted = to === 'fahrenheit' ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9;
    return { value: Math.round(converted * 10) / 10, unit: to };
  },
});

/** The demo's gated tool (`hitl_tools` in examples/forecast-agent.yaml): it "sends" nothing, so the demo stays offline. */
export const sendForecast = defineTool({
  name: 'send_forecast',
  description: 'Emails a forecast to a recipient. It sends for real in production: a person approves each call first.',
  parameters: z.object({
    to: z.string().email().describe('Who receives it'),
    subject: z.string().min(1),
    body: z.string().min(1),
  }),
  execute: ({ to, subject }) => `Sent "${subject}" to ${to} (the demo delivers nothing: no network).`,
});

export const demoTools: Tool[] = [getWeather, getTimezone, convertTemperature, sendForecast];
