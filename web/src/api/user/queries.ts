/** Query keys and queries of the user domain. */
import { queryOptions } from '@tanstack/react-query'
import type { TextOption } from '../../components/crud/types'
import { ownerApi } from './admin'

/** Owners to choose from (a station's owner): the largest page of the owner list. */
export const ownerOptionsQuery = () =>
  queryOptions({
    queryKey: [...ownerApi.key, 'options'],
    queryFn: async (): Promise<TextOption[]> =>
      (await ownerApi.list({ current: 1, size: 200 })).records.flatMap((owner) =>
        owner.id ? [{ value: owner.id, label: `${owner.realName} (${owner.account})` }] : [],
      ),
  })
