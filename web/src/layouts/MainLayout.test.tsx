import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { RouterProvider, createMemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../locales/i18n'
import { routes } from '../router/routes'
import { useLayoutStore } from '../stores/layout'
import { useSessionStore } from '../stores/session'
import { mockHttp, ok, unmockHttp } from '../test/http'
import { withQueryClient } from '../test/render'

const menu = [
  {
    id: '3',
    code: 'intelligentOperation',
    name: '智能运维',
    path: '/intelligentOperation',
    category: 1,
    children: [
      {
        id: '39',
        code: 'repair',
        name: '维修工单',
        path: '/intelligentOperation/repair',
        category: 1,
      },
    ],
  },
]

const width = (value: number) =>
  act(() => {
    Object.defineProperty(window, 'innerWidth', { configurable: true, writable: true, value })
    useLayoutStore.getState().setScreen(value)
  })

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  useSessionStore.getState().logout()
  mockHttp((path) =>
    path.startsWith('/blade-system/menu/routes')
      ? ok(menu)
      : path.endsWith('/page')
        ? ok({ records: [], total: 0, size: 10, current: 1, pages: 0 })
        : ok(path.startsWith('/blade-system/tenant/info') ? null : []),
  )
  act(() => useSessionStore.getState().setTokens('tok', 'ref'))
})

afterEach(() => {
  cleanup()
  unmockHttp()
  width(1024)
})

const visit = (path: string) => {
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  render(withQueryClient(<RouterProvider router={router} />))
  return router
}

describe('main layout', () => {
  it('on a desktop: the sidebar, the collapse button and every top-bar tool', async () => {
    width(1280)
    visit('/basicFacts/equipmentMap')
    expect(await screen.findByTestId('side-menu', {}, { timeout: 20000 })).toBeTruthy()
    expect(screen.getByTestId('collapse-toggle')).toBeTruthy()
    expect(screen.getByTestId('language-switch')).toBeTruthy()
    expect(screen.queryByTestId('menu-drawer-toggle')).toBeNull()
    expect(screen.getByTestId('main-layout').dataset.phone).toBe('false')
    expect(document.documentElement.classList.contains('pv-phone')).toBe(false)
  })

  it('below 768 px: a hamburger opens the menu in a drawer; the bell and the user menu stay', async () => {
    width(390)
    const router = visit('/basicFacts/equipmentMap')
    const toggle = await screen.findByTestId('menu-drawer-toggle', {}, { timeout: 20000 })
    expect(screen.getByTestId('main-layout').dataset.phone).toBe('true')
    expect(document.documentElement.classList.contains('pv-phone')).toBe(true)
    expect(screen.getByTestId('alarm-bell')).toBeTruthy()
    expect(screen.getByTestId('user-menu')).toBeTruthy()
    // Tools that do not fit collapse into the user menu or hide.
    expect(screen.queryByTestId('collapse-toggle')).toBeNull()
    expect(screen.queryByTestId('language-switch')).toBeNull()
    expect(screen.queryByTestId('top-menu')).toBeNull()
    // No sidebar (and so no flyout over the content) until the drawer opens.
    expect(screen.queryByTestId('side-menu')).toBeNull()
    expect(toggle.style.width).toBe('44px')
    expect(toggle.style.height).toBe('44px')
    fireEvent.click(toggle)
    const side = await screen.findByTestId('side-menu')
    expect(side.className).toContain('ant-menu-inline')
    expect(side.className).not.toContain('ant-menu-inline-collapsed')
    fireEvent.click(await screen.findByText('智能运维'))
    fireEvent.click(await screen.findByText('维修工单'))
    await waitFor(() => expect(router.state.location.pathname).toBe('/intelligentOperation/repair'))
    // Navigating closes the drawer.
    await waitFor(() =>
      expect(document.querySelector('.ant-drawer-open [data-testid="side-menu"]')).toBeNull(),
    )
  })

  it('the user menu on a phone offers the language', async () => {
    width(390)
    visit('/basicFacts/equipmentMap')
    fireEvent.click(await screen.findByTestId('user-menu', {}, { timeout: 20000 }))
    expect(await screen.findByTestId('menu-lang-en')).toBeTruthy()
    expect(screen.getByTestId('logout')).toBeTruthy()
  })
})
