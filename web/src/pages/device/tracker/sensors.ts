/**
 * The rules of a bracket's sensor list, mirroring `parse_sensors` of `cloud/src/station/flex.rs`
 * (at most 32; each named, of a known kind, with a unit id 1–247 or a point; names unique), so
 * the editor shows every problem before sending. The server checks again.
 */
import { MAX_SENSORS, SENSOR_KINDS, type FlexSensor } from '../../../api/station/flex'
import type { MessageKey } from '../../../components/crud/types'

export interface SensorIssue {
  key: MessageKey
  values: Record<string, string | number>
  /** 0-based row, when the problem is one sensor's. */
  row?: number
}

export const canAddSensor = (sensors: readonly FlexSensor[]): boolean =>
  sensors.length < MAX_SENSORS

export const newSensor = (): FlexSensor => ({ name: '', kind: '', unitId: null, point: '' })

export function checkSensors(sensors: readonly FlexSensor[]): SensorIssue[] {
  if (sensors.length > MAX_SENSORS) {
    return [{ key: 'deviceUi.flex.sensorLimit', values: { max: MAX_SENSORS } }]
  }
  const issues: SensorIssue[] = []
  const names = new Set<string>()
  sensors.forEach((sensor, row) => {
    const n = row + 1
    const name = sensor.name.trim()
    if (name === '') issues.push({ key: 'deviceUi.flex.sensorNameRequired', values: { n }, row })
    if (!(SENSOR_KINDS as readonly string[]).includes(sensor.kind)) {
      issues.push({ key: 'deviceUi.flex.sensorKindRequired', values: { n }, row })
    }
    const unit = sensor.unitId
    const hasUnit = unit !== null && unit !== undefined
    if (hasUnit && !(Number.isInteger(unit) && unit >= 1 && unit <= 247)) {
      issues.push({ key: 'deviceUi.flex.sensorUnitRange', values: { n }, row })
    }
    if (!hasUnit && !sensor.point?.trim()) {
      issues.push({ key: 'deviceUi.flex.sensorWhere', values: { n }, row })
    }
    if (name !== '') {
      if (names.has(name))
        issues.push({ key: 'deviceUi.flex.sensorDuplicate', values: { name }, row })
      names.add(name)
    }
  })
  return issues
}
