import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { render } from '@testing-library/react'
import { App, ConfigProvider } from 'antd'
import zhCN from 'antd/locale/zh_CN'
import type { ReactNode } from 'react'
import { createQueryClient } from '../api/queryClient'

/**
 * A query client of its own for one test (nothing cached between tests); failures are not
 * retried, so a failing call shows its outcome at once.
 */
export function testQueryClient(): QueryClient {
  const client = createQueryClient()
  client.setDefaultOptions({
    ...client.getDefaultOptions(),
    queries: { ...client.getDefaultOptions().queries, retry: false },
  })
  return client
}

/** Wraps a node in the query client (tests of hooks and components outside `renderInApp`). */
export function withQueryClient(node: ReactNode, client: QueryClient = testQueryClient()) {
  return <QueryClientProvider client={client}>{node}</QueryClientProvider>
}

/** Renders inside the providers the console's pages run in (zh, antd App context, query client). */
export function renderInApp(node: ReactNode, client: QueryClient = testQueryClient()) {
  return render(
    <ConfigProvider locale={zhCN}>
      <App>{withQueryClient(node, client)}</App>
    </ConfigProvider>,
  )
}
