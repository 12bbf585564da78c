/** Query keys and queries of the user domain. */
import { queryOptions } from '@tanstack/react-query'
import type { TextOption } from '../../components/crud/types'
import { formSeed } from '../queryClient'
import { ownerApi } from './admin'
import { getDeptSelect, getRoleSelect, getUserInfo } from './index'

export const userKeys = {
  /** The signed-in user's own data (personal information, department/role switch). */
  self: ['user', 'self'] as const,
}

/** Owners to choose from (a station's owner): the largest page of the owner list. */
export const ownerOptionsQuery = () =>
  queryOptions({
    queryKey: [...ownerApi.key, 'options'],
    queryFn: async (): Promise<TextOption[]> =>
      (await ownerApi.list({ current: 1, size: 200 })).records.flatMap((owner) =>
        owner.id ? [{ value: owner.id, label: `${owner.realName} (${owner.account})` }] : [],
      ),
  })

/** The signed-in user's own information (`blade-user/info`): seeds the personal information form. */
export const userInfoQuery = () =>
  queryOptions({
    queryKey: [...userKeys.self, 'info'],
    queryFn: getUserInfo,
    ...formSeed,
  })

/**
 * The departments and roles the user may switch to (`dept/select`, `role/select`, both by user
 * id), together: the switch form is filled once both have answered. Fresh each time the form opens.
 */
export const switchChoicesQuery = (userId: string) =>
  queryOptions({
    queryKey: [...userKeys.self, 'switchChoices', userId],
    queryFn: () => Promise.all([getDeptSelect(userId), getRoleSelect(userId)]),
    ...formSeed,
  })
