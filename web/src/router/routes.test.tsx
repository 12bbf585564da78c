import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import { message, notification } from 'antd'
import type { AxiosAdapter } from 'axios'
import { RouterProvider, createMemoryRouter } from 'react-router-dom'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import request, { configureRequest } from '../api/request'
import i18n from '../locales/i18n'
import { useSessionStore } from '../stores/session'
import { withQueryClient } from '../test/render'
import { builtPageOf } from './menuPages'
import { routes } from './routes'

const ok = (data: unknown) => ({ code: 200, success: true, data, msg: '操作成功' })
let menuTree: unknown[] = []
const seededMenu = [
  {
    id: '3',
    code: 'intelligentOperation',
    name: '智能运维',
    path: '/intelligentOperation',
    source: 'ControlOutlined',
    sort: 4,
    category: 1,
    children: [
      {
        id: '31',
        // A menu whose page is not built (a made-up one: spare parts).
        code: 'spareParts',
        name: '备件管理',
        path: '/intelligentOperation/spareParts',
        sort: 2,
        category: 1,
      },
    ],
  },
]

let health: { status: number; body: unknown }
let listAnswer: [number, unknown]
beforeEach(async () => {
  listAnswer = [200, ok({ records: [], total: 0, size: 10, current: 1, pages: 0 })]
  menuTree = seededMenu
  useSessionStore.getState().logout()
  await i18n.changeLanguage('zh')
  health = {
    status: 200,
    body: {
      code: 200,
      success: true,
      data: { status: 'ok', version: '0.1.0', database: 'sqlite', uptimeSeconds: 1 },
      msg: '操作成功',
    },
  }
  const adapter: AxiosAdapter = (config) => {
    const url = config.url ?? ''
    const [status, data] = url.startsWith('/health')
      ? [health.status, health.body]
      : url.startsWith('/blade-auth/oauth/captcha')
        ? [200, { key: 'k', image: 'data:image/png;base64,' }]
        : url.startsWith('/blade-system/menu/routes')
          ? [200, ok(menuTree)]
          : url.endsWith('/list')
            ? listAnswer
            : [200, ok(url.startsWith('/blade-system/tenant/info') ? null : [])]
    return Promise.resolve({ data, status, statusText: '', headers: {}, config })
  }
  request.defaults.adapter = adapter
})

afterEach(async () => {
  cleanup()
  // Toasts live in antd's own root, which cleanup() does not unmount: their close timers
  // would render after the test.
  message.destroy()
  notification.destroy()
  request.defaults.adapter = undefined
  // React's scheduler may still hold a render queued (setImmediate) by a page that was loading
  // when the test ended (the home page's lazy chunks and calls): let it run while jsdom's window
  // still exists, instead of after the environment is torn down ("window is not defined").
  await new Promise((resolve) => setTimeout(resolve, 300))
})

// A lazy page chunk still being imported when the last test ends resolves later on a loaded
// machine (seen under a full test run: "window is not defined" after teardown): give it time to
// land while jsdom still exists.
afterAll(async () => {
  await new Promise((resolve) => setTimeout(resolve, 2000))
})

function visit(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  render(withQueryClient(<RouterProvider router={router} />))
  return router
}

describe('routes', () => {
  it('sends / to /login without a token and titles the page', async () => {
    const router = visit('/')
    // The first visit loads the layout chunk (the route's lazy module) before the guard runs.
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 5000 })
    await waitFor(() => expect(document.title).toBe('登录 - 光伏电站智慧运维监控平台'))
    const status = await screen.findByTestId('server-status')
    await waitFor(() =>
      expect(status.textContent).toBe('服务状态：正常 · 数据库 sqlite · 版本 0.1.0'),
    )
  })

  it('shows the unreachable state when the health call fails', async () => {
    health = { status: 500, body: { code: 500, success: false, data: null, msg: 'boom' } }
    visit('/login')
    const status = await screen.findByTestId('server-status')
    await waitFor(() => expect(status.dataset.state).toBe('down'))
  })

  it('sends a deep link to /login without a token', async () => {
    const router = visit('/basicFacts/equipmentMap')
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
  })

  it('sends unknown paths to /404', async () => {
    const router = visit('/no/such/page')
    await waitFor(() => expect(router.state.location.pathname).toBe('/404'))
    expect(await screen.findByText('抱歉，您访问的页面不存在。')).toBeTruthy()
  })

  it('with a token, a menu path shows the not-available page titled with the menu name', async () => {
    act(() => useSessionStore.getState().setTokens('tok', 'ref'))
    // The premise: this menu path has no built page (pick another one once it has).
    expect(builtPageOf('/intelligentOperation/spareParts')).toBeUndefined()
    visit('/intelligentOperation/spareParts')
    const page = await screen.findByTestId('page-not-available', {}, { timeout: 20000 })
    expect(page.textContent).toContain('备件管理')
    expect(page.textContent).toContain('该页面尚未开放')
    await waitFor(() => expect(document.title).toBe('备件管理 - 光伏电站智慧运维监控平台'))
    cleanup()
    visit('/intelligentOperation/spareParts/index')
    expect((await screen.findByTestId('page-not-available')).textContent).toContain('备件管理')
    expect(await screen.findByText('智能运维')).toBeTruthy()
  })

  it('a built menu page (/system/param) shows its screen, not the not-available page', async () => {
    menuTree = [
      ...seededMenu,
      {
        id: '9',
        code: 'system',
        name: '系统管理',
        path: '/system',
        sort: 9,
        category: 1,
        children: [
          {
            id: '98',
            code: 'param',
            name: '参数管理',
            path: '/system/param',
            sort: 8,
            category: 1,
          },
        ],
      },
    ]
    act(() => useSessionStore.getState().setTokens('tok', 'ref'))
    visit('/system/param')
    const page = await screen.findByTestId('crud-page', undefined, { timeout: 5000 })
    expect(page.dataset.menuCode).toBe('param')
    expect(screen.queryByTestId('page-not-available')).toBeNull()
    await waitFor(() => expect(document.title).toBe('参数管理 - 光伏电站智慧运维监控平台'))
  })

  it('a 401 on a menu page signs out to /login (not /404)', async () => {
    menuTree = [
      {
        id: '9',
        code: 'system',
        name: '系统管理',
        path: '/system',
        category: 1,
        children: [
          { id: '98', code: 'param', name: '参数管理', path: '/system/param', category: 1 },
        ],
      },
    ]
    listAnswer = [401, { code: 401, success: false, data: null, msg: '请求未授权' }]
    act(() => useSessionStore.getState().setTokens('tok', 'ref'))
    // As src/router/index.ts wires it for the app's router.
    const router = createMemoryRouter(routes, { initialEntries: ['/system/param'] })
    configureRequest({ onUnauthorized: () => void router.navigate('/login', { replace: true }) })
    render(withQueryClient(<RouterProvider router={router} />))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 5000 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(router.state.location.pathname).toBe('/login')
  })

  it('with no menu assigned, the sidebar says so', async () => {
    menuTree = []
    act(() => useSessionStore.getState().setTokens('tok', 'ref'))
    visit('/basicFacts/equipmentMap')
    expect((await screen.findByTestId('no-menu')).textContent).toContain('暂未分配菜单')
  })

  it('with a token, a path no menu names goes to /404', async () => {
    act(() => useSessionStore.getState().setTokens('tok', 'ref'))
    const router = visit('/station/nothing')
    await waitFor(() => expect(router.state.location.pathname).toBe('/404'))
  })

  it('while locked, pages lead to /lock', async () => {
    act(() => {
      useSessionStore.getState().setTokens('tok', 'ref')
      useSessionStore.getState().setLockPasswd('pw')
      useSessionStore.getState().lock()
    })
    const router = visit('/info/index')
    await waitFor(() => expect(router.state.location.pathname).toBe('/lock'))
    expect(await screen.findByTestId('lock-page')).toBeTruthy()
  })

  it('with a token, / leads to the home map and /login back home', async () => {
    act(() => useSessionStore.getState().setTokens('tok', 'ref'))
    const router = visit('/login')
    await waitFor(() => expect(router.state.location.pathname).toBe('/basicFacts/equipmentMap'))
    expect(await screen.findByTestId('home-page')).toBeTruthy()
    expect(screen.getByTestId('clock').textContent).toMatch(/^\d\d:\d\d:\d\d \d{4}-\d\d-\d\d 星期/)
  })
})
