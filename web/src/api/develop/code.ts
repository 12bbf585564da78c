/**
 * The code generator (`/api/blade-develop/code`, docs/develop.md): a row names a model and the
 * module to make of it; preview shows every file, gen-code downloads them zipped. Platform only.
 */
import { entityApi } from '../crud'
import request from '../request'
import { filenameOf, type Download } from '../station/excel'
import type { Envelope } from '../types'

export interface CodeRow {
  id?: string
  modelId: string
  /** Answered, not sent. */
  modelName?: string
  /** The zh menu name (备品备件). */
  codeName: string
  codeNameEn: string
  /** `^[a-z][a-z0-9_]{1,39}$`, unique: file and table name (`spare_part`). */
  moduleName: string
  /** 1: rows belong to the caller's tenant; 0: shared. */
  tenantScoped: number
  remark?: string | null
  createTime?: string
}

export const codeApi = entityApi<CodeRow>({ style: 'blade', base: '/blade-develop/code' })

/** Copies a row (`{codeName}（副本）`, module `{moduleName}_copy`…). */
export async function copyCode(id: string): Promise<void> {
  await request.post<Envelope<unknown>>('/blade-develop/code/copy', null, { params: { id } })
}

export type CodeLanguage = 'rust' | 'sql' | 'typescript' | 'tsx' | 'toml'

export interface GeneratedFile {
  /** Where it goes in the repository (`web/src/api/business/sparePart.ts`). */
  path: string
  language: CodeLanguage | (string & {})
  content: string
}

/** Every file the generator makes for a row. */
export async function previewCode(id: string): Promise<GeneratedFile[]> {
  const res = await request.get<Envelope<GeneratedFile[] | null>>('/blade-develop/code/preview', {
    params: { id },
  })
  return res.data.data ?? []
}

/** The target the generator writes for: this product's React console. */
export const generatorSystem = 'saber'

/** The zip of the files of these rows, named by the server (`code-{yyyyMMddHHmmss}.zip`). */
export async function generateCode(ids: readonly string[]): Promise<Download> {
  const res = await request.post<Blob>('/blade-develop/code/gen-code', null, {
    params: { ids: ids.join(','), system: generatorSystem },
    responseType: 'blob',
  })
  const disposition = res.headers['content-disposition'] as string | undefined
  return { blob: res.data, filename: filenameOf(disposition, 'code.zip') }
}
