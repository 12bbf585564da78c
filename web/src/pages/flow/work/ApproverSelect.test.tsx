import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import ApproverSelect from './ApproverSelect'

const users = [
  { id: '11', account: 'mgr', name: '王经理' },
  { id: '12', account: 'lead', name: 'lead' },
]

let calls: Call[] = []
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path, call) => {
    if (path !== '/blade-desk/process/leave/approvers') return ok(null)
    const k = call.params.get('keyword') ?? ''
    return ok(users.filter((u) => u.account.includes(k) || u.name.includes(k)))
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('the leave approver picker', () => {
  it('asks the hub by what is typed and gives the chosen user id', async () => {
    let chosen = ''
    renderInApp(<ApproverSelect onChange={(id) => (chosen = id)} />)
    const input = screen.getByRole('combobox')
    act(() => {
      fireEvent.mouseDown(input)
    })
    expect(await screen.findByText('王经理 (mgr)')).toBeTruthy()
    expect(screen.getByText('lead')).toBeTruthy()
    fireEvent.change(input, { target: { value: 'mg' } })
    await waitFor(() => expect(calls.some((c) => c.params.get('keyword') === 'mg')).toBe(true))
    await waitFor(() => expect(screen.queryByText('lead')).toBeNull())
    fireEvent.click(screen.getByText('王经理 (mgr)'))
    expect(chosen).toBe('11')
  })
})
