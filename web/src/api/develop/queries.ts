/** Query keys and queries of the developer tools (tables of a data source, field settings, preview). */
import { queryOptions } from '@tanstack/react-query'
import { formSeed } from '../queryClient'
import { codeApi, previewCode } from './code'
import { datasourceApi } from './datasource'
import { modelApi, modelPrototypes, tableList } from './model'

/** The tables of a data source (the model form's picker); under the data source's key. */
export const tableListQuery = (datasourceId: string) =>
  queryOptions({
    queryKey: [...datasourceApi.key, 'tables', datasourceId],
    queryFn: () => tableList(datasourceId),
    enabled: datasourceId !== '',
  })

/** A model's field settings as the grid edits them: fresh each time it opens. */
export const prototypesQuery = (modelId: string) =>
  queryOptions({
    queryKey: [...modelApi.key, 'prototypes', modelId],
    queryFn: () => modelPrototypes(modelId),
    ...formSeed,
  })

/** The files a code row generates: fresh each time the preview opens (settings may have changed). */
export const previewQuery = (codeId: string) =>
  queryOptions({
    queryKey: [...codeApi.key, 'preview', codeId],
    queryFn: () => previewCode(codeId),
    ...formSeed,
  })
