import { afterEach, describe, expect, it, vi } from 'vitest'
import { configureRequest } from '../request'
import { mockHttp, ok, unmockHttp } from '../../test/http'
import { filenameOf, importFailure, importStations, isExcelFile } from './excel'

afterEach(() => unmockHttp())

describe('station import', () => {
  it('maps the refused import to its message and row errors, sorted by row, without a toast', async () => {
    const notify = vi.fn()
    configureRequest({ notifyError: notify })
    mockHttp(() => ({
      code: 400,
      success: false,
      msg: '导入失败：共2处错误，未导入任何数据',
      data: {
        errors: [
          { row: 5, field: 'contactPhone', label: '联系电话', message: '请输入正确的11位手机号码' },
          { row: 3, field: '', label: '', message: '业主不存在' },
        ],
      },
    }))
    const result = await importStations(new File(['x'], 'stations.xlsx'))
    expect(notify).not.toHaveBeenCalled()
    expect(result).toEqual({
      ok: false,
      message: '导入失败：共2处错误，未导入任何数据',
      errors: [
        { row: 3, field: '', label: '', message: '业主不存在' },
        { row: 5, field: 'contactPhone', label: '联系电话', message: '请输入正确的11位手机号码' },
      ],
    })
  })

  it('a refusal without a report has no rows; success counts the rows', async () => {
    mockHttp(() => ({
      code: 400,
      success: false,
      msg: '请上传 .xls 或 .xlsx 格式的文件',
      data: null,
    }))
    expect(await importStations(new File(['x'], 'a.xlsx'))).toEqual({
      ok: false,
      message: '请上传 .xls 或 .xlsx 格式的文件',
      errors: [],
    })
    const calls = mockHttp(() => ok({ imported: 3 }))
    expect(await importStations(new File(['x'], 'a.xlsx'))).toEqual({ ok: true, imported: 3 })
    expect(calls[0].path).toBe('/station/import')
    expect(importFailure(new Error('offline'))).toEqual({ message: 'offline', errors: [] })
  })

  it('takes .xls/.xlsx only', () => {
    expect(isExcelFile('a.xlsx')).toBe(true)
    expect(isExcelFile('A.XLS')).toBe(true)
    expect(isExcelFile('a.csv')).toBe(false)
    expect(isExcelFile('a.xlsx.exe')).toBe(false)
  })

  it('reads the file name of a download', () => {
    expect(filenameOf('attachment; filename="pv-edge-gw1.toml"', 'x')).toBe('pv-edge-gw1.toml')
    expect(filenameOf("attachment; filename*=UTF-8''%E7%94%B5%E7%AB%99.xlsx", 'x')).toBe(
      '电站.xlsx',
    )
    expect(filenameOf(undefined, 'fallback.xlsx')).toBe('fallback.xlsx')
  })
})
