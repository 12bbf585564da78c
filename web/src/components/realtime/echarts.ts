/**
 * echarts for the monitoring screens, tree-shaken to the charts they draw (line, bar, pie, map,
 * scatter). Every chart of the console goes through `<Chart>` (Chart.tsx).
 */
import {
  BarChart,
  EffectScatterChart,
  LineChart,
  MapChart,
  PieChart,
  ScatterChart,
} from 'echarts/charts'
import {
  DataZoomComponent,
  GeoComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components'
import * as echarts from 'echarts/core'
import { CanvasRenderer } from 'echarts/renderers'

echarts.use([
  LineChart,
  BarChart,
  PieChart,
  MapChart,
  ScatterChart,
  EffectScatterChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  DataZoomComponent,
  GeoComponent,
  TitleComponent,
  VisualMapComponent,
  MarkLineComponent,
  CanvasRenderer,
])

export { echarts }
