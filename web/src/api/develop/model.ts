/**
 * Models of the developer tools (`/api/blade-develop/model`, docs/develop.md): a table of a data
 * source and how each of its columns is shown and checked (its prototypes). Platform only.
 */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope, Page } from '../types'

export interface Model {
  id?: string
  datasourceId: string
  /** Answered, not sent. */
  datasourceName?: string
  modelName: string
  /** `^[a-z][a-z0-9_]{1,39}$`, unique. */
  modelCode: string
  /** The table in the data source. */
  modelTable: string
  modelRemark?: string | null
  createTime?: string
}

export const modelApi = entityApi<Model>({ style: 'blade', base: '/blade-develop/model' })

/** Every model (the code generator's select): the list's largest page. */
export async function modelList(): Promise<Model[]> {
  const page: Page<Model> = await modelApi.list({ current: 1, size: 200 })
  return page.records
}

export interface TableName {
  name: string
  comment?: string | null
}

export interface Column {
  name: string
  type: string
  nullable: boolean
  primaryKey: boolean
  maxLength?: number | null
  comment?: string | null
}

export interface TableInfo {
  tableName: string
  columns: Column[]
}

export type PropertyType = 'string' | 'integer' | 'number' | 'date'
export type Component = 'input' | 'textarea' | 'number' | 'select' | 'date'

export const propertyTypes: readonly PropertyType[] = ['string', 'integer', 'number', 'date']
export const components: readonly Component[] = ['input', 'textarea', 'number', 'select', 'date']

/** How one column is shown and checked (a field of the generated page). */
export interface Prototype {
  id?: string
  modelId: string
  /** The column. */
  jdbcName: string
  /** Its declared type (`VARCHAR(64)`, `INTEGER`…). */
  jdbcType: string
  /** The wire name, `^[a-z][A-Za-z0-9]{0,39}$`. */
  propertyName: string
  propertyType: PropertyType
  labelZh: string
  labelEn: string
  component: Component
  required: boolean
  /** A column of the list. */
  list: boolean
  /** A filter of the list. */
  search: boolean
  /** A field of the form. */
  form: boolean
  /** A platform dictionary code (a `select` takes its options from it). */
  dictCode?: string | null
  maxLength?: number | null
  minValue?: number | null
  maxValue?: number | null
  sort: number
}

/** The tables of a data source. */
export async function tableList(datasourceId: string): Promise<TableName[]> {
  const res = await request.get<Envelope<TableName[] | null>>('/blade-develop/model/table-list', {
    params: { datasourceId },
  })
  return res.data.data ?? []
}

/** The columns of a model's table, or of a table of a data source. */
export async function tableInfo(
  of: { modelId: string } | { tableName: string; datasourceId: string },
): Promise<TableInfo> {
  const res = await request.get<Envelope<TableInfo>>('/blade-develop/model/table-info', {
    params: of,
  })
  return res.data.data
}

/** The field settings to edit: stored settings merged with the table's current columns. */
export async function modelPrototypes(modelId: string): Promise<Prototype[]> {
  const res = await request.get<Envelope<Prototype[] | null>>(
    '/blade-develop/model/model-prototype',
    { params: { modelId } },
  )
  return res.data.data ?? []
}

/** Replaces a model's field settings at once (all of them; all or nothing). */
export async function submitPrototypes(prototypes: readonly Prototype[]): Promise<void> {
  await request.post<Envelope<unknown>>('/blade-develop/model-prototype/submit-list', [
    ...prototypes,
  ])
}

/** The stored field settings only (what the generator uses), in `sort` order. */
export async function selectPrototypes(modelId: string): Promise<Prototype[]> {
  const res = await request.get<Envelope<Prototype[] | null>>(
    '/blade-develop/model-prototype/select',
    { params: { modelId } },
  )
  return res.data.data ?? []
}
