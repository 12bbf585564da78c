import { SVGRenderer } from 'echarts/renderers'
import type { ProvinceStat } from '../../api/realtime/home'
import { afterEach, describe, expect, it } from 'vitest'
import { CHART_THEMES, registerChartThemes } from './chartTheme'
import { deviceCurveOption } from './deviceLive'
import { echarts } from './echarts'
import { provinceOption, statusPieOption } from './fleetCharts'
import { STATUSES, type RunStatus } from './status'

echarts.use([SVGRenderer])
registerChartThemes()

type Chart = ReturnType<typeof echarts.init>
const charts: Chart[] = []
afterEach(() => {
  charts.splice(0).forEach((c) => c.dispose())
})

/** Draws an option server-side (SVG) with a theme, as the console would. */
function draw(option: Record<string, unknown>, theme?: string): string {
  const chart = echarts.init(null, theme, { renderer: 'svg', ssr: true, width: 800, height: 400 })
  charts.push(chart)
  chart.setOption({ ...option, animation: false })
  return chart.renderToSVGString()
}

/** The fills of every SVG <text> holding exactly `label` (legend item, slice label, axis label). */
function textFills(svg: string, label: string): string[] {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml')
  return Array.from(doc.getElementsByTagName('text'))
    .filter((t) => t.textContent === label)
    .map((t) => t.getAttribute('fill') ?? '')
}

const names = {
  zh: {
    producing: '发电中',
    standby: '待机',
    offline: '离线',
    commissioning: '调试中',
    fault: '故障',
  },
  en: {
    producing: 'Producing',
    standby: 'Standby',
    offline: 'Offline',
    commissioning: 'Commissioning',
    fault: 'Fault',
  },
} satisfies Record<string, Record<RunStatus, string>>

const qinghai: ProvinceStat = {
  provinceCode: '630000',
  provinceName: '青海省',
  stations: 1,
  capacityWp: 5e6,
  powerW: 3e6,
  todayWh: 8e4,
  totalWh: 1e8,
}

const counts = Object.fromEntries(STATUSES.map((s, i) => [s, i + 1])) as Record<RunStatus, number>
/** Mean of r, g, b of an SVG fill (`#rgb`, `#rrggbb` or `rgb(...)`), 0-255. */
function brightness(fill: string): number {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(fill)?.[1]
  const rgb = hex
    ? (hex.length === 3 ? [...hex].map((c) => c + c) : hex.match(/../g)!).map((h) =>
        parseInt(h, 16),
      )
    : (fill.match(/\d+/g) ?? []).slice(0, 3).map(Number)
  return Math.round(rgb.reduce((a, b) => a + b, 0) / 3)
}

/** Drawn at least once, and every time with a real colour. */
const allVisible = (fills: string[]) =>
  fills.length > 0 && fills.every((f) => f !== '' && f !== 'none' && f !== 'transparent')

describe('chart theme and legends', () => {
  for (const lang of ['zh', 'en'] as const) {
    // No theme too: an option must not blank a text the default theme would draw.
    for (const [mode, theme] of [...Object.entries(CHART_THEMES), ['none', undefined]]) {
      it(`the status doughnut's legend shows every status name (${lang}, ${mode})`, () => {
        const svg = draw(
          statusPieOption(counts, (s) => names[lang][s]),
          theme,
        )
        for (const s of STATUSES) {
          // The legend names every status (the ring carries the counts).
          const fills = textFills(svg, names[lang][s])
          expect(allVisible(fills), `${names[lang][s]}: fills ${fills.join()}`).toBe(true)
        }
      })

      it(`the province chart's legend names both series (${lang}, ${mode})`, () => {
        const labels =
          lang === 'zh'
            ? { capacity: '装机容量', today: '今日发电量', unknown: '--' }
            : { capacity: 'Capacity', today: 'Energy today', unknown: '--' }
        const svg = draw(provinceOption([qinghai], labels), theme)
        for (const label of [labels.capacity, labels.today]) {
          const fills = textFills(svg, label)
          expect(allVisible(fills), `${label}: fills ${fills.join()}`).toBe(true)
        }
      })
    }
  }

  it("a device's day curve draws its grid in the theme's colour (no light grey on dark)", () => {
    const start = new Date('2026-05-01T08:00:00').getTime()
    const option = deviceCurveOption(
      [
        {
          name: 'irradiance_poa',
          label: 'Irradiance',
          unit: 'W/m²',
          points: [0, 1, 2, 3].map((i): [number, number] => [start + i * 3_600_000, 100 * i]),
          implausiblePoints: 0,
        },
      ],
      { date: '2026-05-01' },
    )
    const strokes = (svg: string) =>
      Array.from(
        new DOMParser().parseFromString(svg, 'image/svg+xml').getElementsByTagName('path'),
      ).map((p) => p.getAttribute('stroke') ?? '')
    const dark = strokes(draw(option, CHART_THEMES.dark))
    // The theme's rgba(255,255,255,0.12), written as a stroke and its opacity.
    expect(dark).toContain('rgb(255,255,255)')
    expect(dark.filter((s) => s.toLowerCase() === '#f0f0f0')).toEqual([])
  })

  it('the dark theme draws text, axis labels and legends light; the light theme dark', () => {
    const option = provinceOption([qinghai], {
      capacity: 'Capacity',
      today: 'Energy today',
      unknown: '--',
    })
    const dark = draw(option, CHART_THEMES.dark)
    const light = draw(option, CHART_THEMES.light)
    for (const label of ['Capacity', '青海省', 'MWp']) {
      expect(textFills(dark, label).map(brightness), label).toEqual([255])
      expect(textFills(light, label).map(brightness), label).toEqual([0])
    }
  })
})
