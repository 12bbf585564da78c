/** Dictionaries and business dictionaries (contract "Dictionaries"; tree root code DICT, isSealed 0/1). */
import { entityApi, type CrudApi } from '../crud'
import request from '../request'
import type { TreeNode } from '../tree'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

export interface Dict {
  id?: string
  /** "0" for a dictionary; else the id of the dictionary (or entry) it belongs to. */
  parentId?: string
  code: string
  /** A dictionary row itself has dictKey "-1". */
  dictKey: string
  dictValue: string
  /** The English value (select lists show it when the console is in English). */
  dictValueEn?: string | null
  sort: number
  /** 0 no, 1 yes. */
  isSealed: number
  remark?: string
  /** The tenant owning the row (business dictionaries show the platform's, read-only). */
  tenantId?: string
}

/** One entry as `dict/dictionary?code=` answers it (select boxes): `dictValue` in the language
 * the console asks for (Accept-Language). */
export interface DictEntry {
  id: string
  parentId: string
  code: string
  dictKey: string
  dictValue: string
  sort?: number
  remark?: string
}

export type DictKind = 'dict' | 'dict-biz'

const base = (kind: DictKind) => `/blade-system/${kind}`

export interface DictApi extends CrudApi<Dict> {
  /** The entries of one dictionary, paged (`child-list?parentId=`). */
  childList: (query: PageQuery) => Promise<Page<Dict>>
  tree: (code: string) => Promise<TreeNode[]>
}

export function dictApi(kind: DictKind): DictApi {
  const crud = entityApi<Dict>({ style: 'blade', base: base(kind) })
  return {
    ...crud,
    async childList(query) {
      const res = await request.get<Envelope<Page<Dict> | null>>(`${base(kind)}/child-list`, {
        params: query,
      })
      return pageFrom(res.data.data, query)
    },
    async tree(code) {
      const res = await request.get<Envelope<TreeNode[] | null>>(`${base(kind)}/tree`, {
        params: { code },
      })
      return res.data.data ?? []
    },
  }
}

/** `GET dict/dictionary?code=`: the entries of a platform dictionary, by sort. */
export async function getDictionary(code: string): Promise<DictEntry[]> {
  const res = await request.get<Envelope<DictEntry[] | null>>('/blade-system/dict/dictionary', {
    params: { code },
  })
  return res.data.data ?? []
}
