/**
 * Station assignment (`cloud/src/station/assignment.rs`): which stations each user of the tenant
 * (owners, maintenance staff) is given; visibility follows from it on the server.
 */
import request from '../request'
import type { Envelope, Page, PageQuery } from '../types'
import type { NameAndId } from './station'

export interface UserStations {
  id: string
  account: string
  realName?: string | null
  phone?: string | null
  /** Role names, comma-joined. */
  roleName: string
  stationIds: string[]
  stations: NameAndId[]
}

/** Filters: account, realName, phone (contains); roleAlias (`owner`, `maintenance`). */
export async function pageAssignment(query: PageQuery): Promise<Page<UserStations>> {
  const res = await request.get<Envelope<Page<UserStations> | null>>('/station/pageAssignment', {
    params: query,
  })
  const data = res.data.data
  return {
    records: (data?.records ?? []).map((u) => ({ ...u, stationIds: u.stationIds.map(String) })),
    total: Number(data?.total ?? 0),
    size: Number(data?.size ?? query.size ?? 10),
    current: Number(data?.current ?? query.current ?? 1),
    pages: Number(data?.pages ?? 0),
  }
}

/** Replaces the user's stations (an empty list takes every one away). */
export async function updateUserStation(userId: string, stationIds: readonly string[]) {
  await request.post<Envelope<boolean>>('/station/updateUserStation', {
    userId,
    stationIds: [...stationIds],
  })
}
