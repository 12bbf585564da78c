import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import { anchorOf, periodProblem, pinned, type Period } from '../../../api/report/period'
import { reportKeys, reportQuery } from '../../../api/report/queries'
import type { ReportRequest } from '../../../api/report/report'

/** The station a page opens with (`?stationId=`), then the one picked. */
export function useStationParam(): [string | undefined, (id: string | undefined) => void] {
  const [params] = useSearchParams()
  return useState<string | undefined>(params.get('stationId') ?? undefined)
}

/**
 * One report on screen: the answer of `request` (null: not asked yet), the previous answer kept
 * while the next loads, the period's problem or the hub's refusal as text, and the request an
 * export must send (the same, with the station's today pinned once the hub has named it).
 */
export function useReport<T>(
  build: (p: Period) => ReportRequest | null,
  period: Period,
  titleOf: (data: T) => string | undefined,
) {
  const { t } = useTranslation()
  const client = useQueryClient()
  const problemKey = periodProblem(period)
  const request = problemKey ? null : build(period)
  const query = useQuery({
    ...reportQuery<T>(request ?? { path: '', params: {} }),
    enabled: request !== null,
    placeholderData: keepPreviousData,
  })
  const data = request ? query.data : undefined
  const title = data === undefined ? undefined : titleOf(data)
  const current = data !== undefined && !query.isPlaceholderData
  const refused = query.isError && query.error instanceof Error ? query.error.message : null
  return {
    data,
    loading: request !== null && query.isFetching,
    problem: problemKey ? t(`report.period.${problemKey}`) : refused,
    /** What the export sends: the request of the answer on screen. */
    exportRequest: request && current ? build(pinned(period, title)) : null,
    title,
    anchor: anchorOf(title),
    reload: () => void client.invalidateQueries({ queryKey: reportKeys.all }),
  }
}
