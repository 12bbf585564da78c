/** The one echarts wrapper of the console (options in, canvas out; resizes with its box). */
import ReactEChartsCore from 'echarts-for-react/esm/core'
import type { CSSProperties } from 'react'
import { useChartTheme } from './chartTheme'
import { echarts } from './echarts'

export interface ChartProps {
  option: Record<string, unknown>
  style?: CSSProperties
  /** Replace the option instead of merging (series added / removed). */
  notMerge?: boolean
  onEvents?: Record<string, (params: unknown) => void>
  'data-testid'?: string
  /** Always dark (the big screen); otherwise the chart follows the app's theme. */
  theme?: 'dark'
}

export default function Chart({ option, style, notMerge, onEvents, theme, ...rest }: ChartProps) {
  const chartTheme = useChartTheme(theme === 'dark')
  return (
    <div
      data-testid={rest['data-testid']}
      data-chart-theme={chartTheme}
      style={{ width: '100%', ...style }}
    >
      <ReactEChartsCore
        echarts={echarts}
        option={option}
        notMerge={notMerge}
        lazyUpdate
        theme={chartTheme}
        onEvents={onEvents}
        style={{ width: '100%', height: style?.height ?? 320 }}
      />
    </div>
  )
}
