import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import { packageVersion } from '../../src/config/index.js';
import { call } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { until } from '../helpers/wait.js';

/**
 * GET /metrics on the whole agent (embedded demo platform, simulated peripherals): the
 * figures a fleet watches after a card sale, read as a scraper reads them, and the text
 * checked line by line against the OpenMetrics grammar (docs/operations.md, "Metrics").
 */
let t: TestAgent;
let agent: RunningAgent;

beforeAll(async () => {
  t = await startTestAgent({ level: 'info' });
  agent = t.agent;
});
afterAll(async () => {
  await t?.stop();
});

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:\\\\.|[^"\\\\\\n])*"';
const NUMBER = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?Inf|NaN)';
const SAMPLE = new RegExp(`^(${NAME})(\\{${LABEL}(?:,${LABEL})*\\})? (${NUMBER})(?: ${NUMBER})?$`);
const META = new RegExp(`^# (TYPE|HELP|UNIT) (${NAME})(?: (.*))?$`);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown']);
/** The suffixes a sample of each metric type may carry (OpenMetrics 1.0, "Metric types"). */
const SUFFIXES: Record<string, string[]> = {
  counter: ['_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  summary: ['', '_count', '_sum', '_created'],
  unknown: [''],
  info: ['_info'],
  stateset: [''],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
};

/** Parses OpenMetrics text strictly; throws on the first line that breaks the grammar. Returns the samples. */
function parseOpenMetrics(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.at(-1) !== '# EOF') throw new Error('the exposition does not end with # EOF');
  const families = new Map<string, string>();
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  let current: string | undefined;
  for (const line of lines.slice(0, -1)) {
    const meta = META.exec(line);
    if (meta !== null) {
      const [, kind, family = ''] = meta;
      if (kind === 'TYPE') {
        const type = meta[3] ?? '';
        if (!TYPES.has(type)) throw new Error(`unknown type in: ${line}`);
        if (families.has(family)) throw new Error(`family declared twice: ${family}`);
        families.set(family, type);
      }
      current = family;
      continue;
    }
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not an OpenMetrics line: ${JSON.stringify(line)}`);
    const name = m[1] ?? '';
    const type = current !== undefined ? families.get(current) : undefined;
    if (current === undefined || type === undefined) throw new Error(`sample before its family's TYPE: ${line}`);
    if (!(SUFFIXES[type] ?? []).some((s) => name === `${current}${s}`))
      throw new Error(`sample ${name} does not belong to ${type} ${current}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '')
      .slice(1, -1)
      .matchAll(new RegExp(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\\\.|[^"\\\\])*)"`, 'g')))
      labels[l[1] ?? ''] = l[2] ?? '';
    const raw = m[3] ?? '';
    samples.push({
      name,
      labels,
      value: raw === '+Inf' || raw === 'Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw),
    });
  }
  return samples;
}

function value(
  samples: ReturnType<typeof parseOpenMetrics>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const OPENMETRICS = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5';

async function scrape(): Promise<{
  type: string | undefined;
  samples: ReturnType<typeof parseOpenMetrics>;
  text: string;
}> {
  const r = await call(agent.url, 'GET', '/metrics', { headers: { accept: OPENMETRICS } });
  expect(r.status).toBe(200);
  return { type: r.headers['content-type'], samples: parseOpenMetrics(r.text), text: r.text };
}

describe('GET /metrics', () => {
  it('is served without the local token, in OpenMetrics text to who asks for it, else in the text format 0.0.4, and refuses a foreign Host', async () => {
    const { type, samples } = await scrape();
    expect(type).toMatch(/^application\/openmetrics-text; version=1\.0\.0; charset=utf-8$/);
    expect(samples.length).toBeGreaterThan(10);
    for (const accept of [
      undefined,
      'text/plain;version=0.0.4',
      '*/*',
      'application/openmetrics-text;q=0, text/plain',
    ]) {
      const plain = await call(agent.url, 'GET', '/metrics', accept !== undefined ? { headers: { accept } } : {});
      expect(plain.headers['content-type'], accept).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8$/);
      expect(plain.text).toMatch(/^# TYPE terminal_agent_sales_total counter$/m);
      expect(plain.text).not.toContain('# EOF');
    }
    const foreign = await call(agent.url, 'GET', '/metrics', { headers: { host: 'evil.example:80' } });
    expect(foreign.status).toBe(403);
  });

  it('counts a card sale by outcome with its latency, and reports queue, certificate, token, devices and platform', async () => {
    // Longer than the two smallest buckets: the sale's observation must not land in every bucket.
    agent.simulated!.reader.nextCard({ delayMs: 300 });
    const sale = await call(agent.url, 'POST', '/api/v1/sales', {
      headers: { authorization: `Bearer ${agent.localToken}` },
      body: { method: 'card', amount: '3.10', currency: 'EUR' },
    });
    expect(sale.status).toBe(202);
    const s = await until(
      'the approved sale counted',
      async () => (await scrape()).samples,
      (samples) => value(samples, 'terminal_agent_sales_total', { outcome: 'approved' }) !== undefined,
      { everyMs: 50 },
    );
    expect(value(s, 'terminal_agent_sales_total', { outcome: 'approved' })).toBe(1);
    expect(value(s, 'terminal_agent_sale_duration_seconds_count', { method: 'card' })).toBe(1);
    const seconds = value(s, 'terminal_agent_sale_duration_seconds_sum', { method: 'card' }) ?? -1;
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(60);
    expect(value(s, 'terminal_agent_sale_duration_seconds_bucket', { method: 'card', le: '+Inf' })).toBe(1);
    // The buckets spread sales: a sale of a fraction of a second is not in the smallest ones.
    expect(value(s, 'terminal_agent_sale_duration_seconds_bucket', { method: 'card', le: '0.1' })).toBe(0);
    expect(value(s, 'terminal_agent_sale_duration_seconds_bucket', { method: 'card', le: '20' })).toBe(1);

    expect(value(s, 'terminal_agent_offline_queue_depth')).toBe(0);
    expect(value(s, 'terminal_agent_offline_oldest_age_seconds')).toBe(0);
    const certificate = value(s, 'terminal_agent_certificate_expiry_seconds') ?? 0;
    expect(Math.abs(certificate - (agent.identity.notAfter.getTime() - Date.now()) / 1000)).toBeLessThan(5);
    expect(
      value(s, 'terminal_agent_info', {
        version: packageVersion(),
        serial_number: agent.identity.serialNumber,
        environment: 'local',
        node_version: process.versions.node,
      }),
    ).toBe(1);
    const token = agent.auth.status().tokens.find((x) => x.hasToken);
    const merchant = token?.merchantId ?? token?.clientId ?? '';
    const left = value(s, 'terminal_agent_token_expiry_seconds', { merchant }) ?? 0;
    expect(left).toBeGreaterThan(0);
    expect(Math.abs(left - (Date.parse(token?.expiresAt ?? '') - Date.now()) / 1000)).toBeLessThan(5);
    expect(value(s, 'terminal_agent_device_state', { device: 'reader', state: 'connected' })).toBe(1);
    expect(value(s, 'terminal_agent_device_state', { device: 'reader', state: 'disconnected' })).toBe(0);
    expect(value(s, 'terminal_agent_platform_available')).toBe(1);
    expect(value(s, 'terminal_agent_journal_write_errors_total')).toBe(0);
  });

  it('shows no token, card number or secret', async () => {
    const { text } = await scrape();
    expect(text).not.toContain(agent.localToken);
    // A card number is a run of 13 to 19 digits; fractions such as a latency's are not.
    expect(text).not.toMatch(/(?<![.\d])\d{13,19}(?![.\d])/);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}/);
  });
});

describe('the OpenMetrics checker', () => {
  it('refuses what breaks the grammar', () => {
    expect(() => parseOpenMetrics('# TYPE a gauge\na 1\n# EOF\n')).not.toThrow();
    expect(() => parseOpenMetrics('# TYPE a gauge\na 1\n')).toThrow(/EOF/);
    expect(() => parseOpenMetrics('# TYPE a counter\na 1\n# EOF\n')).toThrow(/does not belong/);
    expect(() => parseOpenMetrics('a 1\n# EOF\n')).toThrow(/before its family/);
    expect(() => parseOpenMetrics('# TYPE a gauge\na{b=c} 1\n# EOF\n')).toThrow(/not an OpenMetrics line/);
  });
});
