/** Posts (the `/api/blade-system/post` list/detail/submit/remove family). */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope, Page } from '../types'

export interface Post {
  id?: string
  category: number
  postCode: string
  postName: string
  sort: number
  remark?: string
}

export const postApi = entityApi<Post>({ style: 'blade', base: '/blade-system/post' })

/**
 * Every post, to choose from in the user form (the contract has no select call: the list's largest
 * page). Silent: the user form is also open to tenants whose package has no post menu, whose list
 * answers 403; they get no post to choose, not an error toast each time the form opens.
 */
export async function postOptions(): Promise<Post[]> {
  const res = await request.get<Envelope<Page<Post> | null>>('/blade-system/post/list', {
    params: { current: 1, size: 200 },
    silent: true,
  })
  return res.data.data?.records ?? []
}
