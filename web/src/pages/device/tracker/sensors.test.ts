import { describe, expect, it } from 'vitest'
import { flexBody, type FlexSensor } from '../../../api/station/flex'
import { canAddSensor, checkSensors, newSensor } from './sensors'

const sensor = (
  name: string,
  kind = 'angle',
  unitId: number | null = 1,
  point = '',
): FlexSensor => ({
  name,
  kind,
  unitId,
  point,
})

describe('bracket sensors', () => {
  it('accepts named sensors of known kinds with a unit id or a point', () => {
    expect(checkSensors([sensor('a'), sensor('b', 'wind', null, 'AI1')])).toEqual([])
    expect(checkSensors([])).toEqual([])
  })

  it('reports each problem at its row', () => {
    const issues = checkSensors([
      sensor(''),
      sensor('b', 'laser'),
      sensor('c', 'wind', null, ' '),
      sensor('d', 'motor', 300),
      sensor('a2'),
      sensor('a2'),
    ])
    expect(issues.map((i) => [i.key, i.row])).toEqual([
      ['deviceUi.flex.sensorNameRequired', 0],
      ['deviceUi.flex.sensorKindRequired', 1],
      ['deviceUi.flex.sensorWhere', 2],
      ['deviceUi.flex.sensorUnitRange', 3],
      ['deviceUi.flex.sensorDuplicate', 5],
    ])
    expect(issues[4].values).toEqual({ name: 'a2' })
  })

  it('stops at 32 sensors', () => {
    const many = Array.from({ length: 32 }, (_, i) => sensor(`s${i}`))
    expect(canAddSensor(many)).toBe(false)
    expect(canAddSensor(many.slice(1))).toBe(true)
    expect(checkSensors([...many, sensor('x')]).map((i) => i.key)).toEqual([
      'deviceUi.flex.sensorLimit',
    ])
    expect(newSensor()).toEqual({ name: '', kind: '', unitId: null, point: '' })
  })

  it('sends the bracket with its sensors, without sensor ids and with blanks as null', () => {
    const body = flexBody({ stationId: '7', name: 'B', sn: 'T1', mapModel: 'm', unitId: 3 }, [
      { id: '99', name: ' tilt ', kind: 'angle', unitId: 2, point: ' ' },
      { name: 'wind', kind: 'wind', unitId: null, point: 'AI3' },
    ])
    expect(body).toEqual({
      stationId: '7',
      name: 'B',
      sn: 'T1',
      gatewayId: null,
      mapModel: 'm',
      unitId: 3,
      modbusAddress: null,
      remark: null,
      sensors: [
        { name: 'tilt', kind: 'angle', unitId: 2, point: null },
        { name: 'wind', kind: 'wind', unitId: null, point: 'AI3' },
      ],
    })
  })
})
