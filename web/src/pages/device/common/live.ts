import { LineChartOutlined } from '@ant-design/icons'
import { createElement } from 'react'
import type { LiveDeviceKind } from '../../../api/realtime/deviceReal'
import type { DeviceRow } from '../../../api/station/device'
import type { RowAction } from '../../../components/crud/types'
import type { DeviceLiveTarget } from '../../../components/realtime/StationDevicesLive'

/**
 * "Live values" on a weather station's or meter's row: opens its readings and day curve. The
 * menus have no button of their own for it: whoever may view the device may see its data.
 */
export function liveAction<T extends DeviceRow>(
  permission: string,
  open: (row: T) => void,
): RowAction<T> {
  return {
    key: 'live',
    label: 'realtimeUi.deviceLive.open',
    permission,
    icon: createElement(LineChartOutlined),
    run: (row) => open(row),
  }
}

/** The drawer's target for a row (null without an id or a station). */
export function liveTarget(
  row: DeviceRow & { name?: string | null; sn?: string | null },
  kind: LiveDeviceKind,
): DeviceLiveTarget | null {
  if (!row.id || !row.stationId) return null
  return {
    id: String(row.id),
    stationId: String(row.stationId),
    name: row.name ?? row.sn ?? '',
    kind,
  }
}
