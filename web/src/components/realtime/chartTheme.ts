/**
 * The console's two echarts themes (light, dark), registered once, and the hook every chart uses to
 * follow the app's theme store. Text, axes, split lines, legend and tooltip take their colours from
 * here; option builders set only data colours (status colours, series), never text colours.
 */
import { useSettingsStore } from '../../stores/settings'
import { echarts } from './echarts'

export const CHART_THEMES = { light: 'pv-light', dark: 'pv-dark' } as const
export type ChartThemeName = (typeof CHART_THEMES)[keyof typeof CHART_THEMES]

interface Palette {
  text: string
  secondary: string
  axisLine: string
  splitLine: string
  tooltipBg: string
  tooltipBorder: string
  area: string
  areaBorder: string
  areaHover: string
}

export const PALETTES: Record<'light' | 'dark', Palette> = {
  light: {
    text: 'rgba(0,0,0,0.85)',
    secondary: 'rgba(0,0,0,0.65)',
    axisLine: '#bfbfbf',
    splitLine: '#f0f0f0',
    tooltipBg: 'rgba(255,255,255,0.96)',
    tooltipBorder: '#e8e8e8',
    area: '#eef3fa',
    areaBorder: '#a9bfd9',
    areaHover: '#d6e4f5',
  },
  dark: {
    text: 'rgba(255,255,255,0.88)',
    secondary: 'rgba(255,255,255,0.72)',
    axisLine: 'rgba(255,255,255,0.35)',
    splitLine: 'rgba(255,255,255,0.12)',
    tooltipBg: 'rgba(20,28,40,0.95)',
    tooltipBorder: 'rgba(255,255,255,0.2)',
    area: '#0d2a4a',
    areaBorder: '#2f6fa8',
    areaHover: '#17406b',
  },
}

function axis(p: Palette) {
  return {
    axisLine: { lineStyle: { color: p.axisLine } },
    axisTick: { lineStyle: { color: p.axisLine } },
    axisLabel: { color: p.secondary },
    nameTextStyle: { color: p.secondary },
    splitLine: { lineStyle: { color: [p.splitLine] } },
    splitArea: { areaStyle: { color: ['transparent'] } },
  }
}

/** The echarts theme object of one palette (exported for tests). */
export function themeOf(p: Palette): Record<string, unknown> {
  return {
    backgroundColor: 'transparent',
    textStyle: { color: p.text },
    title: { textStyle: { color: p.text }, subtextStyle: { color: p.secondary } },
    legend: {
      textStyle: { color: p.secondary },
      pageTextStyle: { color: p.secondary },
      pageIconColor: p.secondary,
      pageIconInactiveColor: p.axisLine,
      inactiveColor: p.axisLine,
    },
    tooltip: {
      backgroundColor: p.tooltipBg,
      borderColor: p.tooltipBorder,
      textStyle: { color: p.text },
      axisPointer: {
        lineStyle: { color: p.axisLine },
        crossStyle: { color: p.axisLine },
        label: { color: p.text, backgroundColor: p.tooltipBorder },
      },
    },
    categoryAxis: axis(p),
    valueAxis: axis(p),
    timeAxis: axis(p),
    logAxis: axis(p),
    dataZoom: {
      textStyle: { color: p.secondary },
      borderColor: p.axisLine,
      handleStyle: { color: p.secondary },
    },
    visualMap: { textStyle: { color: p.secondary } },
    markLine: { label: { color: p.text } },
    pie: { label: { color: p.text } },
    bar: { label: { color: p.text } },
    line: { label: { color: p.text } },
    geo: {
      itemStyle: { areaColor: p.area, borderColor: p.areaBorder },
      label: { color: p.text },
      emphasis: { itemStyle: { areaColor: p.areaHover }, label: { color: p.text } },
    },
    map: {
      itemStyle: { areaColor: p.area, borderColor: p.areaBorder },
      label: { color: p.text },
      emphasis: { itemStyle: { areaColor: p.areaHover }, label: { color: p.text } },
    },
  }
}

let registered = false

/** Registers both themes with echarts (once). */
export function registerChartThemes(): void {
  if (registered) return
  echarts.registerTheme(CHART_THEMES.light, themeOf(PALETTES.light))
  echarts.registerTheme(CHART_THEMES.dark, themeOf(PALETTES.dark))
  registered = true
}

/** Whether the app's theme store is in dark mode. */
export function useDarkTheme(): boolean {
  return useSettingsStore((s) => s.theme) === 'theme-dark'
}

/**
 * The chart theme to draw with: the app's theme, or dark when `forceDark` (the big screen is always
 * dark).
 */
export function useChartTheme(forceDark = false): ChartThemeName {
  registerChartThemes()
  const dark = useDarkTheme()
  return forceDark || dark ? CHART_THEMES.dark : CHART_THEMES.light
}
