// End-to-end checks of the console against a running hub (the Rust cloud binary, which serves the
// built console and /api). Plain Node ESM + playwright-core driving the system Chromium.
//
//   BASE_URL        where the hub listens (default http://127.0.0.1:8080)
//   SCREENSHOT_DIR  where screenshots go (default web/e2e/screenshots)
//   CHROMIUM        browser binary (default /usr/bin/chromium)
//
// Prints `ok - <name>` / `not ok - <name>` per check, then `N passed, M failed`; exits 1 on failure.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const here = dirname(fileURLToPath(import.meta.url))
const baseUrl = (process.env.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '')
const screenshotDir = resolve(process.env.SCREENSHOT_DIR || join(here, 'screenshots'))
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium'

const productZh = '光伏电站智慧运维监控平台'
const productEn = 'PV Station Smart O&M Monitoring Platform'
const timeout = 15_000

let passed = 0
let failed = 0
async function check(name, fn) {
  try {
    await fn()
    passed++
    console.log(`ok - ${name}`)
  } catch (error) {
    failed++
    console.log(`not ok - ${name}`)
    const text = error instanceof Error ? error.message : String(error)
    for (const line of text.split('\n').slice(0, 8)) console.log(`  # ${line}`)
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message)
}

const pathOf = (page) => new URL(page.url()).pathname
const waitForPath = (page, path) =>
  page
    .waitForURL((url) => url.pathname === path, { timeout })
    .catch(() => {
      throw new Error(`expected to end on ${path}, ended on ${pathOf(page)}`)
    })

/** GET from inside the page (same origin, as the console itself calls). */
const fetchFromPage = (page, path) =>
  page.evaluate(async (url) => {
    const res = await fetch(url, { headers: { Accept: 'application/json' } })
    const text = await res.text()
    let json = null
    try {
      json = JSON.parse(text)
    } catch {
      // not JSON: reported below
    }
    return { status: res.status, contentType: res.headers.get('content-type'), text, json }
  }, path)

mkdirSync(screenshotDir, { recursive: true })
const userDataDir = mkdtempSync(join(tmpdir(), 'pv-e2e-'))
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  viewport: { width: 1280, height: 800 },
  locale: 'zh-CN',
})
const page = context.pages()[0] ?? (await context.newPage())
page.setDefaultTimeout(timeout)
const pageErrors = []
page.on('pageerror', (error) => pageErrors.push(error.message))

try {
  await check('/ without a token ends on /login, titled with the product name', async () => {
    await page.goto(`${baseUrl}/`)
    await waitForPath(page, '/login')
    await page.waitForFunction((t) => document.title === `登录 - ${t}`, productZh, { timeout })
  })

  await check(
    'a deep link (/basicFacts/equipmentMap) loads the console and ends on /login',
    async () => {
      const response = await page.goto(`${baseUrl}/basicFacts/equipmentMap`)
      assert(response?.status() === 200, `deep link answered HTTP ${response?.status()}`)
      assert(
        (response.headers()['content-type'] ?? '').includes('text/html'),
        `deep link answered ${response.headers()['content-type']}, not the console's index.html`,
      )
      await waitForPath(page, '/login')
    },
  )

  await check('an unknown route (/no/such/page) shows the 404 page', async () => {
    await page.goto(`${baseUrl}/no/such/page`)
    await waitForPath(page, '/404')
    await page.getByTestId('error-404').waitFor()
    await page.getByText('抱歉，您访问的页面不存在。').waitFor()
  })

  await check('the login page reports the server OK, with its database', async () => {
    await page.goto(`${baseUrl}/login`)
    const health = await fetchFromPage(page, '/api/health')
    assert(
      health.json?.code === 200,
      `GET /api/health: HTTP ${health.status} ${health.text.slice(0, 200)}`,
    )
    const { database, version } = health.json.data
    const status = page.locator('[data-testid="server-status"][data-state="ok"]')
    await status.waitFor()
    const text = await status.textContent()
    const expected = `服务状态：正常 · 数据库 ${database} · 版本 ${version}`
    assert(text === expected, `status line reads "${text}", expected "${expected}"`)
    await page.screenshot({ path: join(screenshotDir, 'login-zh.png'), fullPage: true })
  })

  await check('GET /api/openapi.json returns the OpenAPI document', async () => {
    const res = await fetchFromPage(page, '/api/openapi.json')
    assert(res.status === 200, `HTTP ${res.status}`)
    assert(
      res.json && typeof res.json.openapi === 'string',
      `no "openapi" field in ${res.text.slice(0, 200)}`,
    )
  })

  await check('GET /api/no-such-thing returns a JSON envelope with code 404', async () => {
    const res = await fetchFromPage(page, '/api/no-such-thing')
    assert(res.json !== null, `not JSON (${res.contentType}): ${res.text.slice(0, 120)}`)
    assert(res.json.code === 404, `code is ${res.json.code}`)
    assert(res.json.success === false, `success is ${res.json.success}`)
    assert(typeof res.json.msg === 'string', 'no msg')
    assert(res.status === 404, `HTTP status ${res.status}`)
  })

  await check(
    'switching to English reloads in English and stays English after a reload',
    async () => {
      await page.goto(`${baseUrl}/login`)
      await page.locator('[data-testid="server-status"][data-state="ok"]').waitFor()
      await Promise.all([
        page.waitForEvent('load', { timeout }),
        page.getByTestId('language-switch').getByText('English', { exact: true }).click(),
      ])
      await page.getByText(productEn, { exact: true }).waitFor()
      await page.locator('[data-testid="server-status"][data-state="ok"]').waitFor()
      const status = await page.getByTestId('server-status').textContent()
      assert(status?.startsWith('Server: OK · database '), `status line reads "${status}"`)
      assert((await page.title()) === `Login - ${productEn}`, `title is "${await page.title()}"`)
      await page.screenshot({ path: join(screenshotDir, 'login-en.png'), fullPage: true })

      await page.reload()
      await page.getByText(productEn, { exact: true }).waitFor()
      const stored = await page.evaluate(() => localStorage.getItem('pv-language'))
      assert(JSON.parse(stored ?? '{}').content === 'en', `stored language entry: ${stored}`)
    },
  )

  await check('no uncaught script errors', async () => {
    assert(pageErrors.length === 0, pageErrors.join('\n'))
  })
} finally {
  await context.close()
  rmSync(userDataDir, { recursive: true, force: true })
}

console.log(`screenshots: ${screenshotDir}`)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
