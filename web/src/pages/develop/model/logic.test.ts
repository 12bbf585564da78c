import { describe, expect, it } from 'vitest'
import type { Prototype } from '../../../api/develop/model'
import { prototypeProblem, prototypesToSave, sortedPrototypes } from './logic'

const proto = (over: Partial<Prototype>): Prototype => ({
  modelId: '5',
  jdbcName: 'part_name',
  jdbcType: 'VARCHAR(64)',
  propertyName: 'partName',
  propertyType: 'string',
  labelZh: '备件名称',
  labelEn: 'Part name',
  component: 'input',
  required: true,
  list: true,
  search: true,
  form: true,
  dictCode: null,
  maxLength: 64,
  minValue: null,
  maxValue: null,
  sort: 1,
  ...over,
})

describe('field settings', () => {
  it('are shown in sort order', () => {
    const rows = [
      proto({ jdbcName: 'b', sort: 2 }),
      proto({ jdbcName: 'z', sort: 1 }),
      proto({ jdbcName: 'a', sort: 2 }),
    ]
    expect(sortedPrototypes(rows).map((r) => r.jdbcName)).toEqual(['z', 'a', 'b'])
  })

  it('need both labels, and a dictionary for a select; the message names the column', () => {
    expect(prototypeProblem([proto({})])).toBeNull()
    expect(prototypeProblem([proto({}), proto({ jdbcName: 'qty', labelEn: ' ' })])).toEqual({
      message: 'develop.model.labelMissing',
      column: 'qty',
    })
    expect(prototypeProblem([proto({ jdbcName: 'kind', component: 'select' })])).toEqual({
      message: 'develop.model.dictMissing',
      column: 'kind',
    })
  })

  it('save only the settings that apply to each field', () => {
    const [text, count, kind] = prototypesToSave(
      [
        proto({ labelZh: ' 备件名称 ', minValue: 1, dictCode: 'x' }),
        proto({
          jdbcName: 'qty',
          propertyType: 'integer',
          component: 'number',
          maxLength: 10,
          minValue: 0,
          maxValue: 999,
        }),
        proto({ jdbcName: 'kind', component: 'select', dictCode: ' spare_kind ' }),
      ],
      '9',
    )
    expect(text).toMatchObject({ modelId: '9', labelZh: '备件名称', maxLength: 64 })
    expect(text).toMatchObject({ minValue: null, maxValue: null, dictCode: null })
    expect(count).toMatchObject({ maxLength: null, minValue: 0, maxValue: 999 })
    expect(kind.dictCode).toBe('spare_kind')
  })
})
