import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import type { Page, PageQuery } from '../../api/types'
import { emptyPage } from '../../api/types'
import { useDict } from '../../hooks/useDict'

/** A paged list read with `load` under query key `key`; `reload` asks again. */
export function usePaged<T>(
  key: string,
  load: (q: PageQuery) => Promise<Page<T>>,
  extra: PageQuery = {},
) {
  const [paging, setPaging] = useState({ current: 1, size: 10 })
  const q = useQuery({
    queryKey: ['flow', key, paging, extra],
    queryFn: () => load({ ...paging, ...extra }),
  })
  return {
    rows: q.data ?? emptyPage<T>(paging.size, paging.current),
    loading: q.isFetching,
    onPage: (current: number, size: number) => setPaging({ current, size }),
    reload: () => void q.refetch(),
  }
}

/** The name of flow route entry `category` (`flow_` + key of dictionary `flow`). */
export function useCategoryName(): (category: string) => string {
  const entries = useDict('flow')
  return (category) => entries.find((e) => `flow_${e.dictKey}` === category)?.dictValue ?? category
}

type Tf = (key: 'flow.status.1' | 'flow.status.2' | 'flow.status.3') => string

/** An instance's status name (1 running, 2 completed, 3 deleted). */
export function statusLabel(t: Tf, status: number): string {
  return status === 2 ? t('flow.status.2') : status === 3 ? t('flow.status.3') : t('flow.status.1')
}
