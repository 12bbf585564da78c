/** Administrative regions (contract "Regions"): keyed by `code`, loaded level by level. */
import { entityKey, wholePage, type CrudApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'

export interface Region {
  /** The table's row key: the code (regions have no other id). */
  id?: string
  code: string
  parentCode?: string
  name: string
  /** 1 province, 2 city, 3 district. */
  level: number
  sort?: number
  hasChildren?: boolean
  children?: Region[]
}

const base = '/blade-system/region'
/** The parent code of the provinces. */
export const rootRegion = '00'

const keyed = (region: Region): Region => ({ ...region, id: region.code })

export async function regionChildren(parentCode: string): Promise<Region[]> {
  const res = await request.get<Envelope<Region[] | null>>(`${base}/lazy-list`, {
    params: { parentCode },
  })
  return (res.data.data ?? []).map(keyed)
}

/** The region family, with `code` standing in for the id the generic page works with. */
export const regionApi: CrudApi<Region> = {
  key: entityKey(base),
  async list() {
    return wholePage(await regionChildren(rootRegion))
  },
  async detail(code) {
    const res = await request.get<Envelope<Region>>(`${base}/detail`, { params: { code } })
    return keyed(res.data.data)
  },
  async submit(region) {
    const body: Partial<Region> = { ...region }
    delete body.id
    await request.post<Envelope<unknown>>(`${base}/submit`, body)
  },
  async remove(codes) {
    // The contract removes one region at a time (`remove?id=`), refused while it has children.
    for (const code of codes) {
      await request.post<Envelope<unknown>>(`${base}/remove`, null, { params: { id: code } })
    }
  },
}
