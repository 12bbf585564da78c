import type { IrradiancePoint } from '../../../api/report/types'
import { chartValue } from '../common/format'

export interface IrradianceChartText {
  poa: string
  ghi: string
  peak: string
}

/** Insolation bars (kWh/m², plane of array and horizontal) with the peak irradiance line (W/m²). */
export function irradianceChart(points: readonly IrradiancePoint[], text: IrradianceChartText) {
  return {
    labels: points.map((p) => p.label),
    leftName: 'kWh/m²',
    rightName: 'W/m²',
    bars: [
      { name: text.poa, data: points.map((p) => chartValue(p.poaKwhM2)), color: '#fa8c16' },
      { name: text.ghi, data: points.map((p) => chartValue(p.ghiKwhM2)), color: '#fadb14' },
    ],
    lines: [
      { name: text.peak, data: points.map((p) => chartValue(p.peakIrradiance)), color: '#f5222d' },
    ],
  }
}
