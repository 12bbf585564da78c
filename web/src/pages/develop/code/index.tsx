import { App } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { generateCode, type CodeRow } from '../../../api/develop/code'
import { saveDownload } from '../../../api/station/excel'
import CrudPage from '../../../components/crud/CrudPage'
import CodePreview from './CodePreview'
import { codeConfig } from './config'

/** /tool/code: the code generator's entries, their preview and the zip of their files. */
export default function CodePage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [previewing, setPreviewing] = useState<CodeRow | null>(null)
  const config = useMemo(
    () =>
      codeConfig({
        preview: setPreviewing,
        generate: (ids) => {
          generateCode(ids).then(
            (file) => {
              saveDownload(file)
              void message.success(t('develop.code.downloaded', { name: file.filename }))
            },
            () => undefined, // shown by the request client
          )
        },
      }),
    [t, message],
  )
  return (
    <>
      <CrudPage config={config} />
      {previewing && <CodePreview row={previewing} onClose={() => setPreviewing(null)} />}
    </>
  )
}
