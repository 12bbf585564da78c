import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import StationListPage from '.'

const refusal = '电站下存在2台设备，确认删除将同时删除这些设备'
let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path, call) => {
    if (path === '/station/page')
      return page([{ id: 's1', name: '阳光屋顶', installationStatus: '1', state: '1' }])
    if (path === '/station/s1' && call.method === 'delete')
      return call.params.get('confirm') === 'true'
        ? ok(true)
        : { code: 400, success: false, data: null, msg: refusal }
    return ok([])
  })
  act(() =>
    useSessionStore.getState().setPermission({ station_delete: true, station_switch: true }),
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('station list delete', () => {
  it('asks again with the server message and only then sends confirm=true', async () => {
    renderInApp(
      <MemoryRouter>
        <StationListPage />
      </MemoryRouter>,
    )
    await screen.findByText('阳光屋顶')
    // Only the buttons the user holds: no add, no import.
    expect(screen.queryByTestId('crud-add')).toBeNull()
    expect(screen.queryByTestId('crud-action-import')).toBeNull()
    fireEvent.click(screen.getByTestId('crud-row-delete'))
    fireEvent.click(await screen.findByTestId('crud-delete-ok'))
    const titles = () =>
      Array.from(
        document.querySelectorAll<HTMLElement>('.ant-modal-confirm-title'),
        (e) => e.textContent,
      )
    await waitFor(() => expect(titles()).toContain(refusal))
    // A question, not an error toast.
    expect(document.querySelector('.ant-message')?.textContent ?? '').not.toContain(refusal)
    expect(screen.getByText(/设备、电价设置和网关凭证/)).toBeTruthy()
    const deletes = () => calls.filter((c) => c.method === 'delete')
    expect(deletes()).toHaveLength(1)
    expect(deletes()[0].params.has('confirm')).toBe(false)
    fireEvent.click(screen.getByTestId('station-delete-cascade-ok'))
    await waitFor(() => expect(deletes()).toHaveLength(2))
    expect(deletes()[1].params.get('confirm')).toBe('true')
    expect(await screen.findByText('删除成功')).toBeTruthy()
  })
})
