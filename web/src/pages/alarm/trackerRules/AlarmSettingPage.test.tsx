import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { clearDictCache } from '../../../hooks/useDict'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import AlarmSettingFlexPage from './index'

let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  clearDictCache()
  useSessionStore.getState().setPermission({
    alarmSettingFlex_add: true,
    alarmSettingFlex_edit: true,
    alarmSettingFlex_delete: true,
  })
  calls = mockHttp((path) => {
    if (path === '/alarmSettingFlex/page')
      return page([
        {
          id: '1',
          stationId: '5',
          stationName: 'S5',
          variable: 'wind_speed',
          variableName: '风速',
          comparison: 'outside',
          threshold: -10,
          thresholdHigh: 10,
          durationSeconds: 30,
          level: 3,
          enabled: true,
        },
      ])
    if (path === '/alarmSettingFlex/listVariable')
      return ok([{ key: 'wind_speed', name: '风速', unit: 'm/s' }])
    if (path === '/station/listStationNameAndId') return ok([{ id: '5', name: 'S5' }])
    if (path.startsWith('/blade-system/dict'))
      return ok([
        { dictKey: '3', dictValue: '重要' },
        { dictKey: '4', dictValue: '紧急' },
      ])
    return undefined
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
  useSessionStore.getState().setPermission({})
})

const choose = async (testId: string, label: string) => {
  const select = screen.getByTestId(testId)
  const root = select.closest('.ant-select') ?? select
  fireEvent.mouseDown(root.querySelector('.ant-select-selector') ?? root)
  const options = await screen.findAllByText(label)
  fireEvent.click(options[options.length - 1])
}

describe('bracket alarm settings', () => {
  it('lists rules with their comparison and variable names', async () => {
    renderInApp(<AlarmSettingFlexPage />)
    const table = await screen.findByTestId('crud-table')
    await waitFor(() => expect(within(table).getByText('风速')).toBeTruthy())
    expect(within(table).getByText('超出范围')).toBeTruthy()
  })

  it('wants a threshold and an upper threshold above it for a range', async () => {
    renderInApp(<AlarmSettingFlexPage />)
    await screen.findByTestId('crud-table')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    await choose('field-comparison', '处于范围内')
    fireEvent.change(screen.getByTestId('field-thresholdHigh'), { target: { value: '5' } })
    fireEvent.change(screen.getByTestId('field-threshold'), { target: { value: '10' } })
    await act(async () => {
      fireEvent.click(screen.getByTestId('crud-submit'))
      await Promise.resolve()
    })
    const errors = () =>
      Array.from(document.querySelectorAll('.ant-form-item-explain-error'), (e) => e.textContent)
    await waitFor(() => expect(errors()).toContain('上限阈值必须大于阈值'))
    expect(errors()).toContain('请选择监测变量')
    expect(errors()).not.toContain('请输入阈值')
    expect(calls.some((c) => c.method === 'post')).toBe(false)
  })
})
