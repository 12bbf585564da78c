import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import NotifyLogPage from './notifyLog'
import NotifySettingsForm from './notifySetting'

let calls: Call[] = []

const settings = {
  quietEnabled: 1,
  quietStart: 1320,
  quietEnd: 420,
  digestBelow: 3,
  digestHour: 8,
  lang: 'zh',
  events: [
    { event: 'alarm_raised', bell: true, sms: true, email: true, minLevel: 2 },
    { event: 'repair_assigned', bell: true, sms: false, email: true, minLevel: 1 },
    { event: 'alarm_cleared', bell: false, sms: false, email: false, minLevel: 3 },
  ],
}

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/blade-resource/notify/setting') return ok(settings)
    if (path === '/blade-resource/notify/log/list')
      return page([
        {
          id: 'n1',
          account: 'maint',
          realName: '张工',
          channel: 'sms',
          event: 'alarm_raised',
          title: 'INV-0：电网过压',
          status: 2,
          attempts: 1,
          address: '139****0007',
          result: 'ok',
          createTime: '2026-11-29 16:00:00',
        },
        {
          id: 'n2',
          account: 'maint',
          channel: 'email',
          event: 'repair_overdue',
          title: '工单 R-1 维修超时',
          status: 0,
          attempts: 2,
          address: 'ma***@pv.test',
          result: 'SMTP: connection refused',
          createTime: '2026-11-29 16:01:00',
        },
      ])
    return ok(true)
  })
  act(() => useSessionStore.getState().setPermission({ notifyLog: true }))
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('notifications', () => {
  it('settings: each event by bell, SMS and e-mail, quiet hours and the digest; saved as edited', async () => {
    renderInApp(
      <MemoryRouter>
        <NotifySettingsForm />
      </MemoryRouter>,
    )
    await screen.findByText('告警产生')
    expect(screen.getByText('工单派发')).toBeTruthy()
    expect(screen.getByText('22:00')).toBeTruthy()
    expect(screen.getByText('07:00')).toBeTruthy()
    // A cleared alarm has no bell message to switch.
    const cleared = screen.getByTestId('notify-event-alarm_cleared').querySelectorAll('input')
    expect(cleared[0].disabled).toBe(true)
    // Only alarm events have a lowest level.
    expect(screen.getByText('≥ 次要')).toBeTruthy()
    const inputs = screen.getByTestId('notify-event-repair_assigned').querySelectorAll('input')
    fireEvent.click(inputs[1])
    fireEvent.click(screen.getByTestId('notify-save'))
    await waitFor(() =>
      expect(
        calls.some((c) => c.method === 'post' && c.path === '/blade-resource/notify/setting'),
      ).toBe(true),
    )
    const saved = calls.find((c) => c.method === 'post')?.body as typeof settings
    expect(saved.events.find((e) => e.event === 'repair_assigned')?.sms).toBe(true)
    expect(saved.events.find((e) => e.event === 'alarm_raised')).toEqual(settings.events[0])
    expect(saved.quietStart).toBe(1320)
  })

  it('log: who, which channel, the event and how it went, in English too', async () => {
    renderInApp(
      <MemoryRouter>
        <NotifyLogPage />
      </MemoryRouter>,
    )
    await screen.findByText('INV-0：电网过压')
    expect(screen.getByText('张工 / maint')).toBeTruthy()
    expect(screen.getByText('已发送')).toBeTruthy()
    expect(screen.getByText('待发送')).toBeTruthy()
    expect(screen.getByText('工单超时')).toBeTruthy()
    expect(screen.queryByTestId('crud-add')).toBeNull()
    await act(() => i18n.changeLanguage('en'))
    await screen.findByText('Repair order overdue')
    expect(screen.getByText('Sent')).toBeTruthy()
  })
})
