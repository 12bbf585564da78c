/** Top menus (contract "Top menus"; tenant-scoped). */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'

export interface TopMenuRow {
  id?: string
  code: string
  name: string
  source?: string
  path?: string
  sort?: number
}

export const topMenuApi = entityApi<TopMenuRow>({ style: 'blade', base: '/blade-system/topmenu' })

/** Replaces the menus of these top menus. */
export async function grantTopMenu(
  topMenuIds: readonly string[],
  menuIds: readonly string[],
): Promise<void> {
  await request.post<Envelope<unknown>>('/blade-system/topmenu/grant', {
    topMenuIds: [...topMenuIds],
    menuIds: [...menuIds],
  })
}
