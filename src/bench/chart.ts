/**
 * leaderboard.svg: a Vega-Lite chart, compiled to Vega and rendered headless to SVG (no canvas, no browser).
 * Left: completion / strict / flexible per system as grouped bars with their percentages written on them;
 * right (when any system ran a task more than once): pass@k of strict success against k, one line per
 * system. Sizes are fixed and no date is drawn, so the same leaderboard always gives the same bytes.
 */
// Types only: vega and vega-lite (a third of a second to load) are imported when a chart is drawn, so that a
// command that draws none does not pay for them (issue 32; test/unit/cli/startup-modules.test.ts).
import type * as vl from 'vega-lite';

/** What the chart reads of a leaderboard (leaderboard.ts's `Leaderboard` is one). */
export interface ChartInput {
  title: string;
  tasks: readonly unknown[];
  counted: number;
  systems: readonly {
    system: string;
    runsPerTask: number;
    rates: { completion: number; strict: number; flexible: number };
    passAtK: readonly { k: number; value: number }[];
  }[];
}

const METRICS = ['completion', 'strict', 'flexible'] as const;
const METRIC_COLORS = ['#9ecae1', '#08519c', '#3182bd'];
const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';

/** The Vega-Lite spec of the chart (exported for tests and for anyone who wants to restyle it). */
export function chartSpec(board: ChartInput): vl.TopLevelSpec {
  const bars = board.systems.flatMap((s) =>
    METRICS.map((metric, order) => ({ system: s.system, metric, order, value: s.rates[metric] })),
  );
  const passPoints = board.systems.flatMap((s) =>
    s.passAtK.map((p) => ({ system: s.system, k: p.k, value: p.value })),
  );
  const systems = board.systems.map((s) => s.system);
  const percentAxis = { format: '.0%', title: null, tickCount: 5, grid: true };
  const barChart = {
    title: { text: 'Rates (mean over runs)', fontSize: 13 },
    width: Math.max(220, columnWidth(systems) * systems.length),
    height: 260,
    data: { values: bars },
    encoding: {
      x: {
        field: 'system',
        type: 'nominal' as const,
        sort: systems,
        title: null,
        // a long label (`hybrid (openai:gpt-4o-mini)`) goes on two lines: the strategy, then the model
        axis: {
          labelAngle: 0,
          labelLimit: 0,
          labelOverlap: false,
          labelFontSize: 11,
          labelExpr: "split(replace(datum.label, ' (', '\\n('), '\\n')",
          labelLineHeight: 14,
        },
      },
      xOffset: { field: 'metric', type: 'nominal' as const, sort: [...METRICS] },
      y: {
        field: 'value',
        type: 'quantitative' as const,
        scale: { domain: [0, 1] },
        axis: percentAxis,
      },
    },
    layer: [
      {
        mark: { type: 'bar' as const },
        encoding: {
          color: {
            field: 'metric',
            type: 'nominal' as const,
            sort: [...METRICS],
            scale: { domain: [...METRICS], range: METRIC_COLORS },
            legend: { title: null, orient: 'top' as const, labelFontSize: 11 },
          },
        },
      },
      {
        mark: { type: 'text' as const, dy: -6, fontSize: 10, color: '#222' },
        encoding: { text: { field: 'value', type: 'quantitative' as const, format: '.0%' } },
      },
    ],
  };
  const showPassAtK = board.systems.some((s) => s.passAtK.length > 1);
  const maxK = Math.max(1, ...board.systems.map((s) => s.passAtK.length));
  const passChart = {
    title: { text: 'pass@k (strict success)', fontSize: 13 },
    width: 240,
    height: 260,
    data: { values: passPoints },
    mark: { type: 'line' as const, point: { size: 50, filled: true } },
    encoding: {
      x: {
        field: 'k',
        type: 'quantitative' as const,
        scale: { domain: [0.75, maxK + 0.25], nice: false },
        axis: { tickMinStep: 1, format: 'd', title: 'k (runs drawn)', values: range(maxK) },
      },
      y: {
        field: 'value',
        type: 'quantitative' as const,
        scale: { domain: [0, 1] },
        axis: percentAxis,
      },
      color: {
        field: 'system',
        type: 'nominal' as const,
        sort: systems,
        scale: { scheme: 'dark2' },
        legend: { title: null, orient: 'top' as const, labelFontSize: 11, labelLimit: 0, columns: 1 },
      },
    },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: board.title, subtitle: subtitle(board), anchor: 'start', fontSize: 16 },
    config: {
      font: FONT,
      view: { stroke: null },
      axis: { labelFont: FONT, titleFont: FONT, labelFontSize: 11, titleFontSize: 11 },
      legend: { labelFont: FONT },
      title: { font: FONT, subtitleFont: FONT, subtitleFontSize: 11, subtitleColor: '#555' },
    },
    padding: 12,
    background: 'white',
    hconcat: showPassAtK ? [barChart, passChart] : [barChart],
    resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
  };
}

/**
 * The room one system's bars get: 150 px, more when its label's longer line (the strategy, or the model in
 * parentheses) would run into the next system's (about 6.6 px a character at 11 px).
 */
function columnWidth(systems: readonly string[]): number {
  const longest = Math.max(
    0,
    ...systems.flatMap((s) =>
      s
        .replace(' (', '\n(')
        .split('\n')
        .map((line) => line.length),
    ),
  );
  return Math.max(150, Math.ceil(longest * 6.6) + 16);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

function subtitle(board: ChartInput): string {
  const runs = board.systems.map((s) => s.runsPerTask);
  const n =
    runs.length > 0 && runs.every((r) => r === runs[0]) ? `, N = ${plural(runs[0]!, 'run')} per task` : '';
  return `${plural(board.tasks.length, 'task')}, ${plural(board.systems.length, 'system')}, ${plural(board.counted, 'run')}${n}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The chart as SVG text. */
export async function renderChart(board: ChartInput): Promise<string> {
  // one after the other: Jest's module loader (the tests) fails on two concurrent imports sharing modules
  const vegaLite = await import('vega-lite');
  const vega = await import('vega');
  const compiled = vegaLite.compile(chartSpec(board)).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return svg.endsWith('\n') ? svg : `${svg}\n`;
  } finally {
    view.finalize();
  }
}
