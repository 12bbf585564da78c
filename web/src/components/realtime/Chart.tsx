/** The one echarts wrapper of the console (options in, canvas out; resizes with its box). */
import ReactEChartsCore from 'echarts-for-react/esm/core'
import type { CSSProperties } from 'react'
import { echarts } from './echarts'

export interface ChartProps {
  option: Record<string, unknown>
  style?: CSSProperties
  /** Replace the option instead of merging (series added / removed). */
  notMerge?: boolean
  onEvents?: Record<string, (params: unknown) => void>
  'data-testid'?: string
  theme?: 'dark'
}

export default function Chart({ option, style, notMerge, onEvents, theme, ...rest }: ChartProps) {
  return (
    <div data-testid={rest['data-testid']} style={{ width: '100%', ...style }}>
      <ReactEChartsCore
        echarts={echarts}
        option={option}
        notMerge={notMerge}
        lazyUpdate
        theme={theme}
        onEvents={onEvents}
        style={{ width: '100%', height: style?.height ?? 320 }}
      />
    </div>
  )
}
