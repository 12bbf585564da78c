// Content-Security-Policy in the real browser: the hub sends one, it is enforced (an injected
// inline script does not run), and walking every page of the admin's menu plus the big screen
// and the station form's map raises no violation. Violations of every other group are collected
// too (see `watchCsp`), so the whole run proves the console lives within its policy.

/**
 * Collects the page's CSP violations across navigations: each document reports its
 * `securitypolicyviolation` events to the console with a marker, and Chromium's own "Refused
 * to ..." console errors are kept as well.
 */
export async function watchCsp(context, page) {
  const violations = []
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(
        `CSP-VIOLATION ${e.violatedDirective} ${e.blockedURI || '(inline)'} at ${location.pathname}`,
      )
    })
  })
  page.on('console', (message) => {
    const text = message.text()
    if (text.startsWith('CSP-VIOLATION') || text.includes('Content Security Policy')) {
      violations.push(text.slice(0, 300))
    }
  })
  return violations
}

/** The paths of the menu's pages (leaves with a local path), in menu order. */
function menuPaths(menus) {
  const out = []
  const walk = (nodes) => {
    for (const node of nodes ?? []) {
      if (node.children?.length) walk(node.children)
      else if (typeof node.path === 'string' && node.path.startsWith('/')) out.push(node.path)
    }
  }
  walk(menus)
  return [...new Set(out)]
}

export async function cspChecks({ page, baseUrl, check, assert, signIn, storedToken }, violations) {
  await check(
    'the console is served with a Content-Security-Policy that the browser enforces',
    async () => {
      const response = await page.goto(`${baseUrl}/login`)
      const policy = response?.headers()['content-security-policy'] ?? ''
      assert(policy.includes("script-src 'self'"), `policy: "${policy}"`)
      assert(policy.includes("frame-ancestors 'none'"), `policy: "${policy}"`)
      assert(response.headers()['x-frame-options'] === 'DENY', 'no X-Frame-Options: DENY')
      assert(response.headers()['x-content-type-options'] === 'nosniff', 'no nosniff')
      const before = violations.length
      const ran = await page.evaluate(async () => {
        const script = document.createElement('script')
        script.textContent = 'window.__injected = true'
        document.body.appendChild(script)
        await new Promise((resolve) => setTimeout(resolve, 300))
        return window.__injected === true
      })
      assert(!ran, 'an injected inline script ran')
      const deadline = Date.now() + 3000
      while (violations.length === before && Date.now() < deadline) await page.waitForTimeout(100)
      assert(violations.length > before, 'the blocked inline script was not reported')
      // The control case is not a finding of the walk below.
      violations.splice(before)
    },
  )

  await check(
    'walking every menu page, the big screen and the map picker breaks no CSP rule',
    async () => {
      // Whoever an earlier group left signed in, the walk is the platform admin's.
      await page.evaluate(() => localStorage.clear())
      await signIn('admin', 'admin')
      const token = await storedToken()
      const menus = await page.evaluate(async (accessToken) => {
        const res = await fetch('/api/blade-system/menu/routes', {
          headers: { 'Blade-Auth': `bearer ${accessToken}` },
        })
        return (await res.json()).data
      }, token)
      const paths = [...menuPaths(menus), '/bigScreen/index']
      assert(paths.length >= 10, `only ${paths.length} pages in the menu`)
      const before = violations.length
      // One full load, then every page the way a user reaches it: in-app navigation, each
      // page's lazy chunk and first calls loaded and settled (no request open for 300 ms, at
      // most 2 s for pages that poll). A reload per page cost about 2 s each.
      let pending = 0
      let requests = 0
      const opened = () => {
        pending++
        requests++
      }
      const closed = () => (pending = Math.max(0, pending - 1))
      page.on('request', opened)
      page.on('requestfinished', closed)
      page.on('requestfailed', closed)
      const settle = async () => {
        const deadline = Date.now() + 2000
        let quietSince = Date.now()
        await page.waitForTimeout(100)
        while (Date.now() < deadline) {
          if (pending > 0) quietSince = Date.now()
          else if (Date.now() - quietSince >= 300) return true
          await page.waitForTimeout(50)
        }
        return false
      }
      let busy = 0
      try {
        await page.goto(`${baseUrl}/`)
        await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => {})
        requests = 0
        for (const path of paths) {
          await page.evaluate((to) => {
            window.history.pushState({}, '', to)
            window.dispatchEvent(new PopStateEvent('popstate'))
          }, path)
          if (!(await settle())) busy++
        }
      } finally {
        page.off('request', opened)
        page.off('requestfinished', closed)
        page.off('requestfailed', closed)
      }
      console.log(
        `  # ${paths.length} pages walked, ${requests} requests, ${busy} never went network-idle`,
      )
      // Each page loads its chunk or asks for its data: fewer requests than pages means the
      // in-app navigation did not open them.
      assert(requests >= paths.length, `${requests} requests for ${paths.length} pages`)
      // The location picker draws the online map (Leaflet tiles) inside the station form.
      await page.goto(`${baseUrl}/station/station`)
      const add = page.getByRole('button', { name: /新\s*增/ }).first()
      if (await add.isVisible().catch(() => false)) {
        await add.click()
        await page.waitForTimeout(1500)
      }
      const found = violations.slice(before)
      assert(found.length === 0, `${found.length} violations:\n${found.slice(0, 6).join('\n')}`)
    },
  )
}
