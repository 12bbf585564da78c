/**
 * The big screen's layout and the dark theme, in the browser.
 *
 * Big screen (/bigScreen/index) at 1440×900 and 1920×1080: the wall fits the window (no page
 * scroll, no panel past the window's edges), the KPI cards fill their column two to a row, the
 * station-status chart is whole inside its panel, the alarm panel and the fleet power curve are
 * there. At 390×844 nothing is wider than the phone (one column that scrolls).
 * Dark theme: every chart on the home page, the fleet console and the big screen draws with the
 * dark chart theme (light text), the station map included.
 */
import { join } from 'node:path'

export async function screenChecks(t) {
  const { page, baseUrl, screenshotDir, timeout, check, assert, signIn } = t

  const setTheme = (theme) =>
    page.evaluate((content) => {
      localStorage.setItem(
        'pv-theme',
        JSON.stringify({ dataType: 'string', content, type: 'local', datetime: Date.now() }),
      )
    }, theme)

  /** Where the wall's parts are, relative to the window. */
  const layout = () =>
    page.evaluate(() => {
      const rect = (el) => {
        const r = el.getBoundingClientRect()
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width }
      }
      const root = document.querySelector('[data-testid="bigscreen-root"]')
      const panels = [...document.querySelectorAll('.bigscreen-panel')].map((el) => ({
        id: el.getAttribute('data-testid') ?? el.className,
        ...rect(el),
      }))
      const column = document.querySelector('.bigscreen-column')
      const cards = [...document.querySelectorAll('[data-testid="kpi-row"] > *')].map(rect)
      const status = document.querySelector('[data-testid="bigscreen-status-body"]')
      const statusCanvas = status?.querySelector('canvas')
      return {
        window: { width: window.innerWidth, height: window.innerHeight },
        scroll: { height: root.scrollHeight, client: root.clientHeight, width: root.scrollWidth },
        panels,
        column: column ? rect(column) : null,
        cards,
        status: status ? rect(status) : null,
        statusCanvas: statusCanvas ? rect(statusCanvas) : null,
      }
    })

  const sizes = [
    [1440, 900],
    [1920, 1080],
  ]

  await check('signed in for the screen checks', async () => {
    // Whoever an earlier group left signed in (the O&M group ends on a phone as the owner), these
    // checks are the platform admin's, on a desktop window.
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.evaluate(() => localStorage.clear())
    await signIn('admin', 'admin')
  })

  for (const [width, height] of sizes) {
    await check(`the big screen fits ${width}×${height}: cards fill, nothing cut off`, async () => {
      await page.setViewportSize({ width, height })
      await page.goto(`${baseUrl}/bigScreen/index`)
      await page.getByTestId('bigscreen-alarms').waitFor({ timeout })
      await page.getByTestId('bigscreen-curve').waitFor({ timeout })
      await page.locator('[data-testid="bigscreen-status"] canvas').waitFor({ timeout })
      await page.waitForTimeout(800)
      const l = await layout()
      assert(
        l.scroll.height <= l.scroll.client + 1,
        `the wall scrolls: ${l.scroll.height} > ${l.scroll.client}`,
      )
      for (const p of l.panels) {
        assert(
          p.top >= 0 && p.bottom <= l.window.height + 0.5 && p.right <= l.window.width + 0.5,
          `panel ${p.id} outside the window: ${JSON.stringify(p)} in ${JSON.stringify(l.window)}`,
        )
      }
      // Two cards to a row, together as wide as the column.
      assert(l.cards.length >= 6, `${l.cards.length} KPI cards`)
      const row = l.cards.filter((c) => Math.abs(c.top - l.cards[0].top) < 1)
      assert(row.length === 2, `${row.length} cards in the first row`)
      const used = row[1].right - row[0].left
      assert(
        used >= l.column.width - 2,
        `the first row spans ${used} of the column's ${l.column.width} px`,
      )
      // The status chart is whole inside its panel's body.
      assert(l.status && l.statusCanvas, 'no status chart')
      assert(
        l.statusCanvas.bottom <= l.status.bottom + 0.5 && l.statusCanvas.top >= l.status.top - 0.5,
        `status chart ${JSON.stringify(l.statusCanvas)} cut by its panel ${JSON.stringify(l.status)}`,
      )
      assert(l.statusCanvas.width > 100, `status chart ${l.statusCanvas.width} px wide`)
      await page.screenshot({ path: join(screenshotDir, `bigscreen-${width}x${height}.png`) })
    })
  }

  await check(
    'station names are whole on the home list and named in full on the big screen',
    async () => {
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.goto(`${baseUrl}/basicFacts/equipmentMap`)
      await page.getByTestId('home-station-name').first().waitFor({ timeout })
      const home = await page.evaluate(() =>
        [...document.querySelectorAll('[data-testid="home-station-name"]')].map((el) => {
          const cell = el.closest('td')
          return {
            name: el.getAttribute('title'),
            text: el.textContent,
            clipped: cell ? cell.scrollWidth > cell.clientWidth + 1 : true,
          }
        }),
      )
      for (const s of home) {
        assert(s.name && s.text === s.name && !s.clipped, `home list: ${JSON.stringify(s)}`)
      }
      await page.goto(`${baseUrl}/bigScreen/index`)
      await page.locator('.bigscreen-list td.name').first().waitFor({ timeout })
      const wall = await page.evaluate(() =>
        [...document.querySelectorAll('.bigscreen-list td.name')].map((td) => ({
          name: td.getAttribute('title'),
          text: td.textContent,
        })),
      )
      for (const s of wall) {
        // The part that tells it apart (a shared beginning dropped), the whole name on hover.
        assert(s.name && s.text && s.name.endsWith(s.text), `big screen: ${JSON.stringify(s)}`)
      }
      assert(wall.length > 0 && home.length > 0, 'no stations to check')
    },
  )

  await check('the big screen stacks into one column at 390×844, nothing wider', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${baseUrl}/bigScreen/index`)
    await page.getByTestId('bigscreen-alarms').waitFor({ timeout })
    await page.waitForTimeout(800)
    const l = await layout()
    assert(l.scroll.width <= l.window.width, `the wall is ${l.scroll.width} px wide`)
    for (const p of l.panels) {
      assert(p.left >= 0 && p.right <= l.window.width + 0.5, `panel ${p.id} past the edge`)
    }
    await page.screenshot({ path: join(screenshotDir, 'bigscreen-390x844.png'), fullPage: true })
  })

  await check('in dark mode every chart (and the station map) draws dark', async () => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await setTheme('theme-dark')
    const themes = async () =>
      page.evaluate(() =>
        [...document.querySelectorAll('[data-chart-theme]')].map((el) =>
          el.getAttribute('data-chart-theme'),
        ),
      )
    // [page, ready when, screenshot, charts at least (a fleet without stations has fewer)]
    for (const [path, ready, shot, least] of [
      ['/basicFacts/equipmentMap', '[data-testid="home-page"]', 'dark-home.png', 0],
      ['/basicFacts/dashboard', '[data-testid="dashboard-page"]', 'dark-dashboard.png', 0],
      ['/bigScreen/index', '[data-testid="bigscreen-status"] canvas', 'dark-bigscreen.png', 3],
    ]) {
      await page.goto(`${baseUrl}${path}`)
      await page.locator(ready).first().waitFor({ timeout })
      await page.waitForTimeout(1500)
      const found = await themes()
      assert(found.length >= least, `${path}: ${found.length} charts`)
      assert(
        found.every((name) => name === 'pv-dark'),
        `${path}: chart themes ${found.join(', ')}`,
      )
      await page.screenshot({ path: join(screenshotDir, shot) })
    }
    // Back in the light theme, the console's charts follow.
    await setTheme('theme-white')
    await page.goto(`${baseUrl}/basicFacts/dashboard`)
    await page.getByTestId('dashboard-page').waitFor({ timeout })
    await page.waitForTimeout(800)
    const light = await themes()
    assert(
      light.every((name) => name === 'pv-light'),
      `light theme: chart themes ${light.join(', ')}`,
    )
  })
}
