/**
 * Station assignment (`cloud/src/station/assignment.rs`): which stations each user of the tenant
 * (owners, maintenance staff) is given; visibility follows from it on the server.
 */
import request from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'
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
  return pageFrom(res.data.data, query, (u) => ({ ...u, stationIds: u.stationIds.map(String) }))
}

/** Replaces the user's stations (an empty list takes every one away). */
export async function updateUserStation(userId: string, stationIds: readonly string[]) {
  await request.post<Envelope<boolean>>('/station/updateUserStation', {
    userId,
    stationIds: [...stationIds],
  })
}
